"""Answers a question's own words give away without the corpus: an acronym spelled out beside it, or the
resource a size in bytes measures."""

from __future__ import annotations

import re

_RESOURCES = frozenset({"ram", "memory", "disk", "disk space", "storage", "heap", "swap"})
_MEMORY = frozenset({"ram", "memory", "heap"})
_MAX_ACRONYM, _MAX_RUN = 12, 6
_ACRONYM = re.compile(r"\b([A-Z]{2,})s?\b")
"""An acronym written in capitals, with or without a plural "s" ("LSM", "LSMs")."""
_BYTES = re.compile(r"\d\s?[kmgtp]i?b\b(?!/)|\b(?:kilo|mega|giga|tera|peta)?bytes?\b(?!/)", re.I)


def _initials(words: list[str]) -> str:
    return "".join(w[0] for w in words if w and w[0].isalpha()).lower()


def acronym_given(answer: str, question: str) -> bool:
    """The answer is an acronym the question spells out ("GSoC": "Google Summer of Code"; "PyPI": "Python
    Package Index", by its capitals; "VMs": "virtual machines", as a plural; "JSPI": "JavaScript Promise
    Integration" and "CSA": "CodeStubAssembler", by the capitals of the words, :func:`_capitals_given`), or
    the question holds the answer's acronym."""
    answer = answer.removesuffix("s") if answer.endswith("s") and answer[-2:-1].isupper() else answer
    if _capitals_given(answer, question):
        return True
    answer_words = answer.replace("-", " ").split()
    question_words = question.replace("-", " ").split()
    capitals = "".join(c for c in answer if c.isupper()).lower()
    forms = {answer.lower()} if answer.isalpha() and len(capitals) >= 2 and 2 <= len(answer) <= 8 else set()
    forms |= {capitals} if len(capitals) >= 3 and answer.isalnum() and len(answer) <= 8 else set()
    if forms:
        return any(_initials(question_words[i : i + len(f)]) == f for f in forms for i in range(len(question_words)))
    initials = _initials([w for w in answer_words if w[:1].isupper() or len(answer_words) > 1])
    words = {w.strip("()[],.;:&").lower() for w in question_words}
    return len(initials) >= 2 and any(initials in (w, w.removesuffix("s")) for w in words)


def shared_acronym(answer: str, question: str) -> bool:
    """Whether the answer and the question hold one acronym, one of them as its plural ("LSMs" beside "LSM
    hooks")."""
    return bool(set(_ACRONYM.findall(answer)) & set(_ACRONYM.findall(question)))


def _capitals_given(answer: str, text: str) -> bool:
    """A name of letters only with three capitals or more whose capitals are those of a run of up to six words
    of ``text`` ("EdDSA": "Edwards-curve Digital Signature Algorithm"); one with a digit is a version of a
    name, not its acronym ("RESP3" beside "RESP2")."""
    capitals = "".join(c for c in answer if c.isupper())
    if len(capitals) < 3 or len(answer) > _MAX_ACRONYM or not answer.replace("-", "").isalpha():
        return False
    word_capitals = ["".join(c for c in word if c.isupper()) for word in text.split()]
    runs = (word_capitals[i : i + n] for n in range(1, _MAX_RUN + 1) for i in range(len(word_capitals) - n + 1))
    return any(run[0] and run[-1] and "".join(run) == capitals for run in runs)


def resource_given(answer: str, question: str) -> bool:
    """The answer is the resource that a size in bytes in the question measures (RAM, memory, disk: "each
    million series takes 15GB of what?"; not a rate, "100 kB/s"), or memory the question names itself ("…
    mds_cache_memory_limit in what?" → RAM)."""
    resource = re.sub(r"^(?:the|a|an)\s+", "", answer.strip().lower())
    named = resource in _MEMORY and "memory" in question.lower()
    return resource in _RESOURCES and (named or _BYTES.search(question) is not None)


def joined_given(answer: str, text: str) -> bool:
    """The answer is one word that the text writes as two or three ("DataTrail": "Data Trail", "FreeType":
    "Free Type"), so the question spells it out."""
    key = _letters(answer)
    if " " in answer.strip() or len(key) < 6:
        return False
    words = [_letters(w) for w in re.split(r"[\s/-]+", text)]
    return any("".join(words[i : i + n]) == key for n in (2, 3) for i in range(len(words) - n + 1))


def _letters(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())
