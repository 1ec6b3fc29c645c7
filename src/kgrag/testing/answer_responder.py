"""A responder for the fake OpenAI server that answers like a careful model: for the ``answer`` prompt, the
context sentence sharing most words with the question (plural ``s`` ignored), cited ``[c:ID]``; for the
``rewrite_question`` prompt, the latest question with the names of the previous one added. Anything else
is echoed. Deterministic, so a streamed and an unstreamed run can be compared reply for reply."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgrag.testing.wire import ChatBody

import json
import re

from kgrag.generation.rewrite import names_in

_PASSAGE = re.compile(r"^\[c:([^\]\s]+)\] (.+)$", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")  # a heading, list item or table row is a line of its own
_STOP = frozenset(
    "a an the and or of to in on at for by with is are was were who what which how does do it its".split()
)


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in _WORD.findall(text.lower()) if w not in _STOP}


def _user(body: ChatBody) -> str:
    users = [str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user"]
    return users[-1] if users else ""


def answer_reply(user: str) -> str:
    """The cited one-sentence answer to the ``answer`` prompt's user turn."""
    context, _, question = user.rpartition("\nQuestion: ")
    wanted = _words(question)
    passages = _PASSAGE.findall(context)
    if not passages:
        return "I don't know based on the provided context."
    sentences = [
        (cid, sentence.strip())
        for cid, text in passages
        for sentence in _SENTENCE.split(text.strip())
        if sentence.strip() and not sentence.lstrip().startswith(("#", "|"))  # not a heading or a table row
    ] or [(passages[0][0], passages[0][1].strip())]
    cid, sentence = max(sentences, key=lambda s: len(wanted & _words(s[1])))
    return f"{sentence} [c:{cid}]"


def rewrite_reply(user: str) -> str:
    """The ``rewrite_question`` reply: the latest question with the previous question's names added."""
    history, _, question = user.rpartition("\nLatest question: ")
    asked = [line[6:] for line in history.splitlines() if line.startswith("User: ")]
    names = [n for n in names_in(asked[-1] if asked else "") if n.lower() not in question.lower()]
    standalone = f"{question.strip().rstrip('?')} ({', '.join(names)})?" if names else question.strip()
    return json.dumps({"question": standalone})


def answer_responder(body: ChatBody) -> str:
    """Answers ``answer`` and ``rewrite_question`` requests as described above; echoes the rest."""
    user = _user(body)
    if "\nLatest question: " in user:
        return rewrite_reply(user)
    if user.startswith("Context:") and "\nQuestion: " in user:
        return answer_reply(user)
    return "echo: " + user
