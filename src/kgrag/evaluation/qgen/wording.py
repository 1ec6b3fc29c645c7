"""How a masked span becomes a question: the question word chosen by the span's entity label, and the
sentence (or its clause) rewritten around it.

A span that opens its clause is replaced by a fronted question word ("Aisha Okafor wrote Shale" →
"Who wrote Shale?"); anywhere else it is asked in place ("Shale keeps raw telemetry for which length
of time?"). The words are chosen by label so that a person is asked with "who", a year with "which
year", a count with "how many", an organisation with "which organization", and so on.
"""

from __future__ import annotations

import re
from typing import Any

FRONTED = {
    "PERSON": "Who",
    "ORG": "Which organization",
    "GPE": "Which place",
    "LOC": "Which location",
    "FAC": "Which facility",
    "PRODUCT": "Which product",
    "EVENT": "Which event",
    "NORP": "Which group",
    "LAW": "Which rule",
    "WORK_OF_ART": "Which work",
    "LANGUAGE": "Which language",
    "MONEY": "What amount of money",
    "PERCENT": "What percentage",
    "QUANTITY": "What quantity",
    "TIME": "What time",
    "THING": "What",
}
IN_PLACE = {
    "PERSON": "which person",
    "ORG": "which organization",
    "GPE": "which place",
    "LOC": "which location",
    "FAC": "which facility",
    "PRODUCT": "which product",
    "EVENT": "which event",
    "NORP": "which group",
    "LAW": "which rule",
    "WORK_OF_ART": "which work",
    "LANGUAGE": "which language",
    "MONEY": "what amount of money",
    "PERCENT": "what percentage",
    "QUANTITY": "what quantity",
    "TIME": "what time",
    "THING": "what",
}
LABELS = frozenset([*FRONTED, "DATE", "CARDINAL"])
_YEAR = re.compile(r"^(in |since |by )?(19|20)\d\d$", re.I)
_DURATION = re.compile(r"(?<![\w-])(years?|months?|weeks?|days?|hours?|minutes?|seconds?)(?![\w-])", re.I)


def question_word(label: str, text: str, next_pos: str, after_preposition: bool, fronted: bool) -> str:
    """The question word or phrase that stands for a span with entity ``label`` and ``text``."""
    if label in ("DATE", "TIME") and _DURATION.search(text):
        word = "how long"
    elif label == "DATE":
        word = "which year" if _YEAR.match(text) else "what date"
    elif label == "CARDINAL":
        word = "how many" if next_pos in ("NOUN", "PROPN") else "what number"
    elif label == "PERSON" and after_preposition:
        word = "whom"
    else:
        word = (FRONTED if fronted else IN_PLACE).get(label, "what")
    return word[0].upper() + word[1:] if fronted else word


def template_name(label: str, fronted: bool) -> str:
    """A short name of the wording used, recorded with each question."""
    return f"{'fronted' if fronted else 'in-place'}:{label.lower()}"


def ask_around(clause: Any, span: Any, label: str) -> tuple[str, str]:
    """The question made from ``clause`` (a spaCy span) with ``span`` replaced by its question word, and
    the name of the template used. A determiner right before the span goes with it ("the Platform
    team" → "which organization")."""
    doc = clause.doc
    start = span.start
    if start > clause.start and doc[start - 1].pos_ == "DET":
        start -= 1
    fronted = start == clause.start
    next_pos = doc[span.end].pos_ if span.end < len(doc) else ""
    after_preposition = start > clause.start and doc[start - 1].pos_ == "ADP"
    word = question_word(label, span.text, next_pos, after_preposition, fronted)
    before = "".join(t.text_with_ws for t in doc[clause.start : start])
    after = "".join(t.text_with_ws for t in doc[span.end : clause.end])
    text = f"{before}{word}{doc[span.end - 1].whitespace_}{after}".strip()
    text = re.sub(r"[\s.;:,!?]+$", "", " ".join(text.split()))
    if not fronted:
        text = text[0].upper() + text[1:]
    return text + "?", template_name(label, fronted)
