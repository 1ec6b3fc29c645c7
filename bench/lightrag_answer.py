"""The stand-in model's query-time answers for bench_lightrag_webui.py, read off the request LightRAG sent:
its keyword-extraction prompt gets the query's capitalised names as low-level keywords and its other
content words as high-level ones (a JSON object, as the prompt asks); its answer prompt (the retrieved
context in the system message, the question as the user turn) gets the context line sharing the most
words with the question, with the reference id of that line when it has one. No canned text: a context
without a matching line is answered "not in the context". Only the UI flow and the costs are measured
with it, not answer quality.
"""

from __future__ import annotations

import json
import re
from typing import Any

QUERY = re.compile(r"^User Query: (.*)$", re.MULTILINE)
NAME = re.compile(r"(?:Dr\. )?[A-Z][a-z]+(?: [A-Z][a-z]+)*(?: \d+)?")
WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset("a an the and or of to in on at for by with is are was were who what which how does do".split())


def words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP}


def keywords(query: str) -> str:
    """LightRAG's keyword JSON for ``query``: names as low-level keywords, other words as high-level."""
    names = [n for n in NAME.findall(query) if n.split()[0] not in ("Which", "Who", "What", "How")]
    named = words(" ".join(names))
    themes = sorted(w for w in words(query) if w not in named)
    return json.dumps({"high_level_keywords": themes, "low_level_keywords": names})


def _lines(context: str) -> list[tuple[str, str]]:
    """The context's lines with text in them and their reference ids: JSON records as their values joined,
    other lines as they are."""
    found = []
    for line in context.splitlines():
        try:
            item = json.loads(line.strip().rstrip(","))
        except ValueError:
            item = line.strip()
        record = item if isinstance(item, dict) else {}
        text = " ".join(str(v) for k, v in record.items() if k != "reference_id") if record else str(item)
        if len(text) > 20:
            found.append((text, str(record.get("reference_id", ""))))
    return found


def answer(system: str, question: str) -> str:
    """The context line sharing the most words with ``question``, cited by its reference id."""
    context = system.split("---Context---", 1)[-1]
    wanted = words(question)
    scored = [(len(wanted & words(text)), text, ref) for text, ref in _lines(context)]
    hits, text, ref = max(scored, default=(0, "", ""))
    if hits == 0:
        return "That is not in the context I was given."
    return f"From the retrieved context: {text[:400]}" + (f" [{ref}]" if ref else "")


def query_reply(request: dict[str, Any]) -> str | None:
    """The reply to a LightRAG query-time request, or None when the request is not one."""
    messages = request.get("messages", [])
    system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    last = users[-1] if users else ""
    asked = QUERY.search(last)
    if "high_level_keywords" in last and asked:
        return keywords(asked.group(1))
    if "---Context---" in system:
        return answer(system, last)
    return None
