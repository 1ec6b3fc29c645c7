"""Follow-up questions of a conversation, rewritten to stand on their own before retrieval.

"And who leads it?" retrieves nothing useful by itself: retrieval and the answer need "who leads the
Platform team?". The rewrite reads the most recent turns that fit the history budget
(``generation.history_share`` of ``generation.context_tokens``) and

* with an LLM: asks the ``rewrite_question`` prompt for the standalone question;
* without one (or when its reply is unusable): carries the names of the previous question (its own
  rewrite, so a chain of follow-ups keeps its subject) into a question that names nothing itself or
  refers back with a pronoun: ``and who leads it? (Kestrel)``; when the previous question names nothing
  (``How many days of annual leave do new employees earn?``: a handbook's subjects are common nouns), its
  content words are carried instead into a question that refers back or starts as a continuation
  (``and how do I request it? (days annual leave new employees earn)``).

The rewrite, how it was made and how many turns it read go into the trace, so a reader sees what was
searched for.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from kgrag.core.context import TraceStep
from kgrag.core.errors import KgragError
from kgrag.documents.words import ordered_content_words
from kgrag.models.llm.client import LLMClient
from kgrag.prompts.schemas import StandaloneQuestion

REWRITE_PROMPT = "rewrite_question"
RewriteMethod = Literal["none", "llm", "names", "words"]

_NAME = re.compile(r"[A-Z][\w'&]*(?:[-.]\w+)*(?:[ \t]+(?:[A-Z][\w'&]*(?:[-.]\w+)*|\d+(?:\.\d+)*))*")
# capitalised only because they start a sentence or a question: not names
_LEADING = frozenset(
    "a an the this that these those and or but so also then which what who whom whose when where why how "
    "is are was were do does did can could should would will has have had in on at for of to from by with "
    "tell list name give show explain describe please".split()
)
_REFERRING = frozenset(
    "it its it's they them their theirs he him his she her hers this that these those there then one ones "
    "same former latter".split()
)
_WORD = re.compile(r"[\w']+")
# how a question goes on from the previous one without naming its subject again ("and …?", "what about …?")
_CONTINUES = re.compile(r"^\s*(?:and|also|so|then|what about|how about|same for|but)\b", re.IGNORECASE)
# content words that only shape a question, not its subject
_ASKING = frozenset("many much long often get tell know need want please".split())


@dataclass(frozen=True)
class Turn:
    """One earlier exchange: the question as asked, what it was taken to mean, and the answer."""

    question: str
    answer: str
    standalone: str = ""

    @property
    def meant(self) -> str:
        """The question as retrieval searched for it (its rewrite, else as asked)."""
        return self.standalone or self.question


@dataclass(frozen=True)
class Rewrite:
    """The question as asked and as searched for, how it was rewritten, how many turns it read."""

    question: str
    standalone: str
    method: RewriteMethod
    turns: int = 0
    note: str = ""

    def trace_step(self, ms: float) -> TraceStep:
        note = self.note or (f"{self.question!r} -> {self.standalone!r}" if self.method != "none" else "")
        return TraceStep(
            step="rewrite",
            params={
                "method": self.method,
                "turns": self.turns,
                "question": self.question,
                "standalone": self.standalone,
            },
            n_out=1,
            ms=ms,
            note=note,
        )


def bounded_history(history: Sequence[Turn], budget_tokens: int, count: Callable[[str], int]) -> list[Turn]:
    """The most recent turns whose text fits ``budget_tokens``, oldest first."""
    kept: list[Turn] = []
    spent = 0
    for turn in reversed(history):
        cost = count(turn.meant) + count(turn.answer)
        if spent + cost > budget_tokens:
            break
        kept.append(turn)
        spent += cost
    return kept[::-1]


def render_history(turns: Sequence[Turn]) -> str:
    """The turns as the prompt shows them: ``User:`` and ``Assistant:`` lines."""
    return "\n".join(f"User: {t.meant}\nAssistant: {' '.join(t.answer.split())}" for t in turns)


def names_in(text: str) -> list[str]:
    """Capitalised runs and identifiers (``Kestrel``, ``Rui Carvalho``, ``INC-2024-031``), each once,
    without the question words a sentence starts with."""
    found: list[str] = []
    for match in _NAME.finditer(text):
        words = match.group(0).split()
        while words and words[0].lower() in _LEADING:
            words = words[1:]
        if words:
            found.append(" ".join(words))
    return list(dict.fromkeys(found))


def carry_names(question: str, turns: Sequence[Turn]) -> Rewrite:
    """The LLM-free rewrite: the previous question's names added to a question that refers back (a
    pronoun) or names nothing itself; a question with names of its own and no pronoun is kept. When the
    previous question has no names, its content words go into a question that refers back or continues
    it ("and …", "what about …"); a question that asks about something new in its own words is kept."""
    if not turns:
        return Rewrite(question, question, "none")
    words = {w.lower() for w in _WORD.findall(question)}
    own = names_in(question)
    if own and not words & _REFERRING:
        return Rewrite(question, question, "none", len(turns), "names its own subject: kept as asked")
    lowered = question.lower()
    carried = [name for name in names_in(turns[-1].meant) if name.lower() not in lowered]
    if carried:
        return Rewrite(question, f"{question.rstrip()} ({', '.join(carried)})", "names", len(turns))
    if words & _REFERRING or _CONTINUES.match(question):
        own_words = set(ordered_content_words(question))
        topic = [w for w in ordered_content_words(turns[-1].meant) if w not in own_words and w not in _ASKING]
        if topic:
            return Rewrite(question, f"{question.rstrip()} ({' '.join(topic)})", "words", len(turns))
    return Rewrite(question, question, "none", len(turns), "nothing in the previous question to carry")


def rewrite_question(question: str, history: Sequence[Turn], llm: LLMClient, budget_tokens: int) -> Rewrite:
    """``question`` made standalone from the turns of ``history`` that fit ``budget_tokens``: by the LLM
    when one is configured, else (or when its reply is unusable) by carrying names."""
    turns = bounded_history(history, budget_tokens, llm.count_tokens)
    if not turns:
        return Rewrite(question, question, "none", 0, "no earlier turn" if not history else "history over budget")
    if not llm.available:
        return carry_names(question, turns)
    variables = {"history": render_history(turns), "question": question.strip()}
    try:
        result = llm.structured(REWRITE_PROMPT, variables, StandaloneQuestion, stage="query.rewrite")
    except KgragError as exc:  # an endpoint down: the LLM-free rewrite still lets the question be answered
        fallback = carry_names(question, turns)
        return Rewrite(question, fallback.standalone, fallback.method, len(turns), f"LLM rewrite failed ({exc})")
    standalone = result.value.question.strip() if result.value is not None else ""
    if result.ok and standalone and not lost_subject(standalone, turns[-1].meant):
        return Rewrite(question, standalone, "llm", len(turns))
    fallback = carry_names(question, turns)
    why = f"it still refers back but names nothing of the last question: {standalone!r}" if result.ok else ""
    note = f"LLM rewrite unusable ({why or result.error or 'empty'}); {fallback.note or 'carried the subject'}"
    return Rewrite(question, fallback.standalone, fallback.method, len(turns), note)


def lost_subject(standalone: str, previous: str) -> bool:
    """Whether a rewrite still refers back (a pronoun: "What is not one?") without a word of the previous
    question: a small model dropped the subject it was asked to spell out."""
    words = {w.lower() for w in _WORD.findall(standalone)}
    return bool(words & _REFERRING) and not set(ordered_content_words(standalone)) & set(
        ordered_content_words(previous)
    )


def timed_rewrite(question: str, history: Sequence[Turn], llm: LLMClient, budget_tokens: int) -> tuple[Rewrite, float]:
    """:func:`rewrite_question` with the milliseconds it took."""
    started = time.perf_counter()
    rewrite = rewrite_question(question, history, llm, budget_tokens)
    return rewrite, round((time.perf_counter() - started) * 1000, 3)
