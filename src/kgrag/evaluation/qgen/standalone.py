"""Whether a known-item question stands on its own, found without an LLM.

A question cut from one sentence keeps that sentence's ties to its surroundings: the writer's own voice
("I suppose …", "our …"), a link to the sentence before ("also", "however", "others"), a sentence the
splitter cut at an abbreviation ("… at the U.S."), an editor's note in square brackets, a subordinate
clause with no main clause ("Since so much … converts to LLVM IR."), or a clause picked out of a long
sentence that has no subject ("Indicating the function should have what disabled?"). Its question word
can also sit where no reader can use it: after a possessive ("keep your what in the loop"), before an
alias in brackets ("called what (or adventitia)"), before "of" or "or more" ("what of code", "what
quantity or more"), in front of a relative clause ("What that's related to …"), after "No." or "#" (a
label number), or as the total of numbers the question gives ("23 pairs … a total of how many?").
Each check returns the reason (counted in the generation report), or None.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

from kgrag.evaluation.qgen.defects import ends_in_abbreviation
from kgrag.evaluation.qgen.fitness import SUBJECTS
from kgrag.evaluation.qgen.referents import LINKING_ADVERBS
from kgrag.evaluation.qgen.wording import side_parts

_FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
_CONNECTIVES = LINKING_ADVERBS | frozenset("however too meanwhile others former latter aforementioned".split())
_QWORD = r"(?:what(?: \w+)?|which \w+|how \w+|who|whom)"
_AFTER_POSSESSIVE = re.compile(rf"\b(?:your|my|our|their|his|her|its) {_QWORD}\b", re.I)
_BEFORE_BRACKET = re.compile(rf"\b{_QWORD} ?[(—–]", re.I)
_BEFORE_OF_OR_MORE = re.compile(
    rf"\bwhat of\b|\b{_QWORD} (?:or|and) (?:more|less|fewer|longer|older|younger|so|above|below)\b", re.I
)
_RELATIVE_AFTER = re.compile(r"^(?:what|which \w+|who) (?:that|which|who)\b", re.I)
_LABEL_NUMBER = re.compile(rf"(?:\bno\.|#)\s*{_QWORD}\b", re.I)
_FINITE = frozenset({"VBZ", "VBP", "VBD", "MD"})
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:\.\d+)?(?![\w.,]*\d)")


def voice_defect(question: str) -> str | None:
    """Why a question leans on its writer or on the text around it, or None."""
    words = re.findall(r"[A-Za-z]+(?:/[A-Za-z]+)*", question)
    if any(w == "I" or (w.lower() in _FIRST_PERSON and not w.isupper()) for w in words):
        return "question speaks in the writer's voice (I, we, our)"  # "US" and "I/O" are not
    if any(w.lower() in _CONNECTIVES for w in words):
        return "question leans on the text around it ('also', 'however', 'others')"
    if "[" in question or "]" in question:
        return "question holds an editor's note in square brackets"
    return None


def placement_defect(question: str) -> str | None:
    """Why the question word stands where a reader cannot use it, or None."""
    if _AFTER_POSSESSIVE.search(question):
        return "question word after a possessive ('your what')"
    if _BEFORE_BRACKET.search(question):
        return "question word before a bracket or a dash (an alias, a unit or a list left in)"
    if ";" in question or ":" in question.replace("://", ""):
        return "question joins two parts with a semicolon or a colon (a lead-in or a cut clause)"
    if _BEFORE_OF_OR_MORE.search(question):
        return "question word before 'of' or 'or more' (a measure cut apart)"
    if _RELATIVE_AFTER.search(question):
        return "question word before a relative clause"
    if _LABEL_NUMBER.search(question):
        return "answer is a label number ('No. 18', '#24622')"
    return None


def computable(answer: str, question: str) -> str | None:
    """Why the answer follows from numbers in the question (their sum, difference, product, quotient,
    double or half), or None."""
    try:
        target = float(answer.replace(",", ""))
    except ValueError:
        return None
    given = [float(n) for n in _NUMBER.findall(question.replace(",", ""))]
    results = {v for a in given for v in (2 * a, a / 2)}
    for a, b in combinations(given, 2):
        results |= {a + b, abs(a - b), a * b, *(x / y for x, y in ((a, b), (b, a)) if y)}
    return "answer is computed from numbers in the question" if target in results else None


def label_number(span: Any) -> str | None:
    """Why a number answer is a label rather than an amount ("RFC 809", "PS 2", "No. 18", "#24622"), or
    an answer is the label of the number after it ("RFC" of "RFC 5952", "NIST SP" of "NIST SP 800-38D");
    or None."""
    after = span.doc[span.end] if span.end < len(span.doc) else None
    if after is not None and re.match(r"\d", after.text) and all(t.is_upper or t.pos_ == "PROPN" for t in span):
        return "answer is the label of the number after it ('RFC' of 'RFC 5952')"
    if not span[0].like_num or span.start == 0:
        return None
    before = span.doc[span.start - 1]
    marked = re.search(r"(?:\bNo\.?|#)\s*$", span.doc.text[: span.start_char], re.I)
    if marked or (before.pos_ == "PROPN" and before.is_upper and len(span) == 1):
        return "answer is a label number ('No. 18', 'RFC 809', '#24622')"
    return None


def misparsed(span: Any) -> str | None:
    """Why the span is a parse error: a preposition's object parsed as a verb's subject ("During [the
    Bergen summer season hotels] fill up early"); or None."""
    i = span.start - 1
    while i >= 0 and span.doc[i].pos_ == "DET":
        i -= 1
    if i >= 0 and span.doc[i].pos_ == "ADP" and span.root.dep_ in ("nsubj", "nsubjpass"):
        return "answer is a misparsed phrase (a preposition before a subject)"
    return None


def participle_opening(clause: Any, span: Any) -> str | None:
    """Why a question opens on a participle or an infinitive cut from the middle of its sentence
    ("Indicating the function should have what disabled?"), or None."""
    drop = side_parts(clause, span)
    first = min((t.i for t in clause if t.i not in drop and not span.start <= t.i < span.end), default=span.start)
    if first <= clause.sent.start or first >= span.start:
        return None
    if clause.doc[first].tag_ in ("VBG", "VBN", "TO"):
        return "question opens on a participle cut from its sentence"
    return None


def cut_sentence(sent: Any) -> str | None:
    """Why a parsed sentence is not a whole sentence: cut at an abbreviation or inside a dotted name
    ("Intl." | "DateTimeFormat may be …"), or a subordinate clause with no main clause; None when it is
    whole."""
    if ends_in_abbreviation(sent.text):
        return "sentence cut at an abbreviation"
    text, start, end = sent.doc.text, sent.start_char, sent.end_char
    if (start > 0 and not text[start - 1].isspace()) or (end < len(text) and not text[end].isspace()):
        return "sentence cut inside a word (a dotted name)"
    if any(c.dep_ == "mark" for c in sent.root.children):
        return "sentence is a subordinate clause (no main clause)"
    return None


def clause_stands(clause: Any) -> bool:
    """Whether a clause picked from a long sentence is a finite clause with its own subject (not a
    participle or infinitive phrase such as "indicating the function should …")."""
    verb = clause.root
    helpers = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    finite = verb.tag_ in _FINITE or any(c.tag_ in _FINITE for c in helpers)
    subject = any(c.dep_ in SUBJECTS for c in verb.children)
    return finite and subject and not any(c.dep_ == "mark" for c in verb.children)
