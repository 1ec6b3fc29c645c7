"""What kind of answer a question asks for, and whether a sentence holds one.

A factual question names the kind of its answer: *who* asks for a person or an organisation, *when* for
a date, *how many* for a number, *how long* for a duration, *where* for a place, *why* for a cause. A
sentence that covers the question's words *and* holds such a thing is far more often the answer than
one that only repeats the question (a heading, a summary line). The cues are regular expressions, so
they cost microseconds and need no model; a cue counts only when what it found is not already in the
question ("When did INC-2024-031 happen?" is not answered by "INC-2024-031" again).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

AnswerType = Literal["person", "date", "number", "duration", "place", "cause", "none"]

_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    "hundred|thousand|million|billion|dozen|half|once|twice|single|double"
)
_UNITS = (
    r"seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?|quarters?|decades?|"
    r"business days?|working days?|sprints?"
)
_NUMBER = rf"(?:\d[\d,.]*|\b(?:{_NUMBER_WORDS})\b)"

_DATE = re.compile(
    rf"\b(?:1[5-9]\d\d|20\d\d)\b|\b\d{{4}}-\d\d-\d\d\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|\bQ[1-4]\b"
    rf"|\b(?:{_MONTHS})\b\.?|\b(?:{_WEEKDAYS})\b|\b\d{{1,2}}:\d\d\b|\b(?:yesterday|today|tomorrow)\b",
    re.IGNORECASE,
)
_COUNT = re.compile(rf"\d[\d,.]*%?|\b(?:{_NUMBER_WORDS}|percent|per cent)\b", re.IGNORECASE)
_DURATION = re.compile(
    rf"{_NUMBER}[\s-]*(?:to|-|–|or)?[\s-]*(?:{_NUMBER})?[\s-]*(?:{_UNITS})\b"
    r"|\b(?:daily|weekly|monthly|quarterly|yearly|annually|hourly|fortnightly|every)\b",
    re.IGNORECASE,
)
# A capitalised word that does not start the sentence (a sentence's first word is capitalised anyway).
_NAME = re.compile(r"(?<=[\w,;:)]\s)[A-Z][\w'’-]*[a-z0-9][\w'’-]*|(?<=[\w,;:)]\s)[A-Z]{2,}\b")
_PLACE = re.compile(r"\b(?:in|at|from|near|to|into|inside|based in|located in)\s+(?:the\s+)?([A-Z][\w'’-]+)")
_CAUSE = re.compile(
    r"\b(?:because|due to|caused|causes|cause|root cause|so that|in order to|as a result|owing to|"
    r"reason|since|led to|leads to|triggered|resulted from|results from)\b",
    re.IGNORECASE,
)

_FIRST_WORDS: tuple[tuple[str, AnswerType], ...] = (
    ("how many", "number"),
    ("how much", "number"),
    ("how old", "number"),
    ("how far", "number"),
    ("how big", "number"),
    ("how large", "number"),
    ("what percentage", "number"),
    ("what share", "number"),
    ("what number", "number"),
    ("how long", "duration"),
    ("how often", "duration"),
    ("how soon", "duration"),
    ("how quickly", "duration"),
    ("within how", "duration"),
    ("what year", "date"),
    ("what date", "date"),
    ("what day", "date"),
    ("which year", "date"),
    ("when", "date"),
    ("who", "person"),
    ("whom", "person"),
    ("whose", "person"),
    ("which team", "person"),
    ("which person", "person"),
    ("which company", "person"),
    ("which customer", "person"),
    ("where", "place"),
    ("which city", "place"),
    ("which country", "place"),
    ("which office", "place"),
    ("why", "cause"),
    ("what caused", "cause"),
    ("what was the cause", "cause"),
    ("what was the root cause", "cause"),
    ("what is the reason", "cause"),
)
_CLAUSE_START = re.compile(r"(?:^|[.?!;,]\s+|\band\s+|\bor\s+)(?=\w)", re.IGNORECASE)
# "on which day", "in what year", "which office": the noun after which/what names the kind.
_WHICH_NOUN = re.compile(r"\b(?:which|what)\s+(\w+)")
_NOUN_KINDS: dict[str, AnswerType] = {
    **dict.fromkeys("day date year month week time weekday".split(), "date"),
    **dict.fromkeys("city country office town region site location place".split(), "place"),
    **dict.fromkeys("person team engineer company customer manager lead owner vendor".split(), "person"),
    **dict.fromkeys("percentage share number amount".split(), "number"),
}
# What a "what is the ..." question asks for when its subject is a quantity ("what are the hotel caps").
_QUANTITY_WORDS = frozenset(
    "cap caps limit limits cost costs price prices fee fees rate rates allowance budget salary size capacity "
    "latency amount total count threshold target percentage duration deadline".split()
)


def answer_types(question: str) -> tuple[AnswerType, ...]:
    """The kinds of answer ``question`` asks for, from how its clauses start ("When, where and by whom
    was X founded?" asks for a date, a place and a person); empty for "what is", "how does" and the like."""
    text = " ".join(question.lower().split())
    found: list[AnswerType] = []
    for match in _CLAUSE_START.finditer(text):
        clause = text[match.end() :]
        for words, kind in _FIRST_WORDS:
            if clause.startswith(words) and (len(clause) == len(words) or not clause[len(words)].isalnum()):
                found.append(kind)
                break
    found.extend(_NOUN_KINDS[noun] for noun in _WHICH_NOUN.findall(text) if noun in _NOUN_KINDS)
    if "by whom" in text:
        found.append("person")
    if not found and _QUANTITY_WORDS & set(re.findall(r"[a-z]+", text)):
        found.append("number")
    return tuple(dict.fromkeys(found))


def _finder(pattern: re.Pattern[str], group: int = 0) -> Callable[[str], list[str]]:
    return lambda sentence: [m.group(group) for m in pattern.finditer(sentence)]


_FINDERS: dict[AnswerType, Callable[[str], list[str]]] = {
    "person": _finder(_NAME),
    "date": _finder(_DATE),
    "number": _finder(_COUNT),
    "duration": _finder(_DURATION),
    "place": _finder(_PLACE, 1),
    "cause": _finder(_CAUSE),
}


def cue_share(kinds: tuple[AnswerType, ...], sentence: str, question_lower: str) -> float:
    """The share of ``kinds`` that ``sentence`` holds something of, where that something is not already
    in the question (``question_lower``: the question lower-cased); 0 when ``kinds`` is empty."""
    if not kinds:
        return 0.0
    held = 0
    for kind in kinds:
        finder = _FINDERS.get(kind)
        if finder is None:
            continue
        found = finder(sentence)
        if kind == "cause":
            held += bool(found)
        else:
            held += any(hit.strip().lower() not in question_lower for hit in found)
    return held / len(kinds)
