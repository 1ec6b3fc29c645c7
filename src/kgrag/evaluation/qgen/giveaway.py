"""Answers a question's own words give away without the corpus: an acronym spelled out beside it, or the
resource a size in bytes measures."""

from __future__ import annotations

import re

_RESOURCES = frozenset({"ram", "memory", "disk", "disk space", "storage", "heap", "swap"})
_MEMORY = frozenset({"ram", "memory", "heap"})
_BYTES = re.compile(r"\d\s?[kmgtp]i?b\b(?!/)|\b(?:kilo|mega|giga|tera|peta)?bytes?\b(?!/)", re.I)


def _initials(words: list[str]) -> str:
    return "".join(w[0] for w in words if w and w[0].isalpha()).lower()


def acronym_given(answer: str, question: str) -> bool:
    """The answer is an acronym the question spells out, or the question holds the answer's acronym."""
    answer_words = answer.replace("-", " ").split()
    question_words = question.replace("-", " ").split()
    if answer.isupper() and 2 <= len(answer) <= 8:
        letters = answer.lower()
        return any(_initials(question_words[i : i + len(letters)]) == letters for i in range(len(question_words)))
    initials = _initials([w for w in answer_words if w[:1].isupper() or len(answer_words) > 1])
    words = {w.strip("()[],.;:&").lower() for w in question_words}
    return len(initials) >= 2 and any(initials in (w, w.removesuffix("s")) for w in words)


def resource_given(answer: str, question: str) -> bool:
    """The answer is the resource that a size in bytes in the question measures (RAM, memory, disk: "each
    million series takes 15GB of what?"; not a rate, "100 kB/s"), or memory the question names itself ("…
    mds_cache_memory_limit in what?" → RAM)."""
    resource = re.sub(r"^(?:the|a|an)\s+", "", answer.strip().lower())
    named = resource in _MEMORY and "memory" in question.lower()
    return resource in _RESOURCES and (named or _BYTES.search(question) is not None)
