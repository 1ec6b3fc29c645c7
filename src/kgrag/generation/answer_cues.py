"""What kind of answer a question asks for, and whether a sentence holds one.

A factual question names the kind of its answer: *who* asks for a person or an organisation, *when* for
a date, *how many* for a number, *how long* for a duration, *where* for a place, *why* for a cause; in
software documentation *when was X added* or *since which version* for a version ("New in version 3.10",
"Added in v2.11"), *what is the default* for a default ("defaults to", "by default"), *is/does X …* for a
yes or no (a sentence that says "not", "only", "always", "disabled"). A
sentence that covers the question's words *and* holds such a thing is far more often the answer than
one that only repeats the question (a heading, a summary line). The cues are regular expressions, so
they cost microseconds and need no model; a cue counts only when what it found is not already in the
question ("When did INC-2024-031 happen?" is not answered by "INC-2024-031" again).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

AnswerType = Literal[
    "person",
    "date",
    "number",
    "duration",
    "place",
    "cause",
    "version",
    "default",
    "yesno",
    "exception",
    "howto",
    "none",
]

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

# Software documentation: a version ("New in version 3.10", "Added in v2.11", "deprecated since 2.0"), a
# default ("the default is 4", "defaults to None", "by default, …"), a yes or no.
_VERSION = re.compile(
    r"\b(?:new|added|changed|introduced|available|deprecated|removed)\b[^.;]{0,40}?\b(?:in|since)\s+"
    r"(?:version\s+|python\s+|pydantic\s+)?v?\d+(?:\.\d+)+\b|\bversion\s+v?\d+(?:\.\d+)+\b|\bv\d+(?:\.\d+)+\b",
    re.IGNORECASE,
)
_DEFAULT = re.compile(
    r"\bdefaults?\s+(?:to|is|are|was|value\s+is)\b|\bby\s+default\b|\(the\s+default\)|\bdefault(?:s|ed)?\s*[:=]"
    r"|\bis\s+the\s+default\b|\bdefault\s+\w+\s+(?:is|are)\b",
    re.IGNORECASE,
)
_POLARITY = re.compile(r"\b(?:not|no|never|only|always|disabled|enabled|cannot|can't|won't|isn't|doesn't)\b", re.I)
_VERSION_WORDS = re.compile(r"\b(?:version|versions|added|introduced|available|deprecated|removed|since)\b")
_EXCEPTION = re.compile(r"\b[\w.]*(?:Error|Exception|Warning)\b")
_RAISES = re.compile(r"\b(?:raise|raises|raised|exception|error)\b")
_YES_NO = re.compile(r"^(?:is|are|does|do|did|can|could|will|would|should|has|have|was|were)\b")

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
    found.extend(_software_kinds(text))
    if not found and _QUANTITY_WORDS & set(re.findall(r"[a-z]+", text)):
        found.append("number")
    return tuple(dict.fromkeys(found))


def _software_kinds(text: str) -> list[AnswerType]:
    """Version, default and yes/no questions: "When was X added?", "Since which version …", "What is the
    default …", "Does X validate …?"."""
    kinds: list[AnswerType] = []
    asks_when = text.startswith(("when", "since when", "since which", "in which", "in what", "which", "what"))
    if _VERSION_WORDS.search(text) and asks_when:
        kinds.append("version")  # a "when" question about a release: a version (or a date) answers it
    if re.search(r"\bdefaults?\b", text):
        kinds.append("default")
    if _YES_NO.match(text):
        kinds.append("yesno")
    if _RAISES.search(text) and text.startswith(("what", "which")):
        kinds.append("exception")
    if text.startswith(("how do i", "how can i", "how to", "how should i", "how do you")):
        kinds.append("howto")
    return kinds


def _finder(pattern: re.Pattern[str], group: int = 0) -> Callable[[str], list[str]]:
    return lambda sentence: [m.group(group) for m in pattern.finditer(sentence)]


_FINDERS: dict[AnswerType, Callable[[str], list[str]]] = {
    "person": _finder(_NAME),
    "date": _finder(_DATE),
    "number": _finder(_COUNT),
    "duration": _finder(_DURATION),
    "place": _finder(_PLACE, 1),
    "cause": _finder(_CAUSE),
    "version": _finder(_VERSION),
    "exception": _finder(_EXCEPTION),
}
# Kinds whose cue is the way the sentence says it, which the question itself may share ("default").
_HOWTO = re.compile(r"\b(?:set|pass|use|call|run|install|add|specify|give)\b[^.;]{0,60}\b(?:to|with|=)|\b\w+=\w+")
_PHRASINGS: dict[AnswerType, re.Pattern[str]] = {"default": _DEFAULT, "yesno": _POLARITY, "howto": _HOWTO}


def cue_share(kinds: tuple[AnswerType, ...], sentence: str, question_lower: str) -> float:
    """The share of ``kinds`` that ``sentence`` holds something of, where that something is not already
    in the question (``question_lower``: the question lower-cased); 0 when ``kinds`` is empty."""
    if not kinds:
        return 0.0
    if "version" in kinds and "date" in kinds:  # "when was X added": a version or a date answers it
        either = cue_share(("version",), sentence, question_lower) or cue_share(("date",), sentence, question_lower)
        rest = tuple(k for k in kinds if k not in ("version", "date"))
        return (either + cue_share(rest, sentence, question_lower) * len(rest)) / (1 + len(rest))
    held = 0
    for kind in kinds:
        if kind in _PHRASINGS:
            held += _PHRASINGS[kind].search(sentence) is not None
            continue
        finder = _FINDERS.get(kind)
        if finder is None:
            continue
        found = finder(sentence)
        if kind == "cause":
            held += bool(found)
        else:
            held += any(hit.strip().lower() not in question_lower for hit in found)
    return held / len(kinds)
