"""How a masked span becomes a question: the question word chosen by the span's entity label, and the
sentence (or its clause) rewritten around it.

A span that opens its clause is replaced by a fronted question word ("Aisha Okafor wrote Shale" →
"Who wrote Shale?"); anywhere else it is asked in place ("Shale keeps raw telemetry for which length
of time?"). The words are chosen by label so that a person is asked with "who", a year with "which
year", a count with "how many", an age with "what age", and so on. Names other than people and
languages are asked with "what": a small model's organisation, place or product labels are wrong often
enough ("which organization" for a performance score, "which place" for a person) that a plain "what"
misleads less.
"""

from __future__ import annotations

import re
from typing import Any

FRONTED = {
    "PERSON": "Who",
    "ORG": "What",
    "GPE": "What",
    "LOC": "What",
    "FAC": "What",
    "PRODUCT": "What",
    "EVENT": "What",
    "NORP": "What",
    "LAW": "What",
    "WORK_OF_ART": "What",
    "LANGUAGE": "Which language",
    "MONEY": "What amount of money",
    "PERCENT": "What percentage",
    "QUANTITY": "What quantity",
    "TIME": "What time",
    "THING": "What",
}
IN_PLACE = {
    "PERSON": "which person",
    "ORG": "what",
    "GPE": "what",
    "LOC": "what",
    "FAC": "what",
    "PRODUCT": "what",
    "EVENT": "what",
    "NORP": "what",
    "LAW": "what",
    "WORK_OF_ART": "what",
    "LANGUAGE": "which language",
    "MONEY": "what amount of money",
    "PERCENT": "what percentage",
    "QUANTITY": "what quantity",
    "TIME": "what time",
    "THING": "what",
}
LABELS = frozenset([*FRONTED, "DATE", "CARDINAL"])
_FREQUENCY = re.compile(r"^(every|each|per|once|twice|daily|weekly|monthly|yearly)\b", re.I)
_YEAR = re.compile(r"^(in |since |by )?(1[5-9]|20)\d\d$", re.I)
_DURATION = re.compile(
    r"(?<![\w-])(decades?|years?|quarters?|months?|weeks?|days?|hours?|minutes?|seconds|(?<=\d )second)(?![\w-])",
    re.I,
)


def question_word(label: str, text: str, next_pos: str, after_preposition: bool, fronted: bool) -> str:
    """The question word or phrase that stands for a span with entity ``label`` and ``text``."""
    if label in ("DATE", "TIME") and _FREQUENCY.match(text):
        word = "how often"
    elif label in ("DATE", "TIME") and re.search(r"\bof age\b|\byears? old\b", text):
        word = "how old"
    elif label in ("DATE", "TIME") and re.match(r"(?:at )?ages? \d", text, re.I):
        word = "what age"
    elif label in ("DATE", "TIME") and _DURATION.search(text):
        word = "how long"
    elif label == "DATE":
        word = "which year" if _YEAR.match(text) else "what number" if text.isdigit() else "what date"
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


_LOOSE_START = re.compile(r"^[\s,;:]+")
_LOOSE_END = re.compile(r"(?:[\s,;:]+(?:and|or|but))?[\s.;:,!?]*$")


def _joined(tokens: list[Any]) -> str:
    """Tokens as written, with a space where a left-out part stood between two of them."""
    out = []
    for t, nxt in zip(tokens, [*tokens[1:], None], strict=False):
        gap = nxt is not None and nxt.i != t.i + 1 and not t.whitespace_
        out.append(t.text_with_ws + (" " if gap else ""))
    return "".join(out)


def side_parts(clause: Any, span: Any) -> set[int]:
    """Token positions of the clause's side clauses and appositions that do not hold the span ("…, and
    Vestland signed the agreement", "…, the columnar storage layer,"), with the comma or joining word
    before them: the question keeps what identifies its fact, not everything its sentence says."""
    doc, drop = clause.doc, set[int]()
    for t in clause:
        clausal = t.dep_ in ("conj", "advcl", "parataxis") and t.pos_ in ("VERB", "AUX")
        if not (clausal or t.dep_ == "appos") or t.i == clause.root.i:
            continue
        if t.left_edge.i <= span.start and span.end - 1 <= t.right_edge.i:
            continue
        if _shares_object(t):
            continue
        drop.update(range(t.left_edge.i, t.right_edge.i + 1))
        j = t.left_edge.i - 1
        while j >= clause.start and doc[j].dep_ in ("cc", "punct", "mark"):
            drop.add(j)
            j -= 1
    return {i for i in drop if clause.start <= i < clause.end}


_OBJECTS = frozenset({"dobj", "obj", "attr", "oprd"})


def _shares_object(verb: Any) -> bool:
    """Whether ``verb`` is the second of two verbs sharing its object and subject ("to receive and
    address reports"): leaving it out would leave the first without its object."""
    head = verb.head
    if verb.dep_ != "conj" or head.pos_ not in ("VERB", "AUX"):
        return False
    own = {c.dep_ for c in verb.children}
    complements = _OBJECTS | {"prep", "agent", "ccomp", "xcomp", "acomp", "dative", "prt"}
    bare = not any(c.dep_ in complements for c in head.children)  # "to receive and address reports"
    return bool(own & _OBJECTS) and not own & {"nsubj", "nsubjpass", "csubj", "expl"} and bare


_IRREGULAR = {"have": "has", "do": "does", "go": "goes"}


def singular_verb(verb: str) -> str:
    """The third-person singular of a plural present verb ("study" → "studies"), so that a fronted
    "What" replacing a plural subject agrees with its verb ("What studies …?", not "What study …?")."""
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    return verb + "s"


def _agreeing(after: str, span: Any, fronted: bool) -> str:
    """``after`` with its first word made singular when a fronted question word replaces a plural subject
    whose verb is a plural present other than "are"/"were" (those read well with "What")."""
    doc = span.doc
    verb = doc[span.end] if span.end < len(doc) else None
    if not fronted or verb is None or span.root.tag_ not in ("NNS", "NNPS") or verb.tag_ != "VBP":
        return after
    if verb.lower_ in ("are", "were") or not after.lstrip().startswith(verb.text):
        return after
    stripped = after.lstrip()
    return after[: len(after) - len(stripped)] + singular_verb(verb.text) + stripped[len(verb.text) :]


def ask_around(clause: Any, span: Any, label: str) -> tuple[str, str, str]:
    """The question made from ``clause`` (a spaCy span, its side parts left out) with ``span`` replaced
    by its question word, the name of the template used, and the words kept around the span. A
    determiner right before the span goes with it ("the Platform team" → "which organization")."""
    doc = clause.doc
    drop = side_parts(clause, span)
    kept = [t for t in clause if t.i not in drop and not span.start <= t.i < span.end]
    start = span.start
    if start > clause.start and doc[start - 1].pos_ == "DET":
        start -= 1
    first = min([t.i for t in kept] + [start])
    fronted = start == first
    next_pos = doc[span.end].pos_ if span.end < len(doc) else ""
    after_preposition = start > first and doc[start - 1].pos_ == "ADP"
    word = question_word(label, span.text, next_pos, after_preposition, fronted)
    before = _joined([t for t in kept if t.i < start])
    after = _agreeing(_joined([t for t in kept if t.i >= span.end]), span, fronted)
    text = f"{before}{' ' if before and before[-1] != ' ' else ''}{word}{doc[span.end - 1].whitespace_}{after}"
    text = re.sub(r"\(\s+", "(", re.sub(r"\s+([,;:)])", r"\1", " ".join(text.split())))
    text = re.sub(r"([,;:])(\s*[,;:])+", r"\1", text)
    text = _LOOSE_START.sub("", _LOOSE_END.sub("", text))
    if not fronted and text:
        text = text[0].upper() + text[1:]
    context = " ".join(t.text for t in kept if t.i != start or start == span.start)
    return text + "?", template_name(label, fronted), context
