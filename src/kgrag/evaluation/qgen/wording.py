"""How a masked span becomes a question: the question word chosen by the span's entity label and form,
and the sentence (or its clause) rewritten around it.

A span that opens its clause is replaced by a fronted question word ("Aisha Okafor wrote Shale" →
"Who wrote Shale?"); anywhere else it is asked in place ("Shale keeps raw telemetry for which length
of time?"). A span in a phrase fronted before the subject and a comma ("Every 6 weeks, a new cycle
begins") is asked with the clause after it inverted ("How often does a new cycle begin?"): its first
auxiliary, or a main "be", moves before the subject, otherwise "do" does (:func:`fronted_phrase`,
:func:`inverted`); a fronted phrase with a verb of its own ("Created in 2012, …") is not inverted, and
the question is refused (:mod:`kgrag.evaluation.qgen.structure`). The words are chosen by label so that
a person, or people named by their role ("the aiohttp committer"), is asked with "who", a year with
"which year", a count with "how many", an age with "what age", a number with a unit of time ("12-17ns",
"2 hours") with "how long", a release number ("2.4.0", "since 3.9") with "which version", and so on.
Names other than people and languages are asked with "what": a small model's organisation, place or
product labels are wrong often enough ("which organization" for a performance score, "which place" for a
person) that a plain "what" misleads less.
"""

from __future__ import annotations

import re
from typing import Any

FRONTED = {
    "PERSON": "Who",
    "PEOPLE": "Who",
    "ORG": "What",
    "GPE": "What",
    "CITY": "Which city",
    "COUNTRY": "Which country",
    "STATE": "Which state",
    "PLACE": "Which place",
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
    "PEOPLE": "who",
    "ORG": "what",
    "GPE": "what",
    "CITY": "which city",
    "COUNTRY": "which country",
    "STATE": "which state",
    "PLACE": "which place",
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
YEAR = r"(?:1[5-9]|20)\d\d"
"""A year as prose writes one (1500-2099), shared by every rule that reads a year or a decade (here and
:mod:`kgrag.evaluation.qgen.cloze`), so that they agree on what a year is."""
_VERSION = re.compile(r"^v?\d+\.\d+(?:\.\d+)+\+?$|^v\d+(?:\.\d+)*\+?$|^\d+\.\d+\+$|^v?\d+(?:\.\d+)*\.x$")
"""A release number ("2.4.0", "v3", "4.6+") or a release line ("8.x"), asked "which version" rather than "what
number"."""
_DATED_VERBS = frozenset(
    "begin start end close open expire found launch release retire ship date schedule plan".split()
)
"""Verbs whose object may be a year ("expires 2030"); after any other verb a bare four-digit object is a count."""
_DOTTED = re.compile(r"^\d+\.\d+$")
_ONWARDS = re.compile(r"^v?\d+(?:\.\d+)+ (?:and|or) (?:later|newer|above|higher)$", re.I)
"""A release and those after it ("1.21 and later"), asked "which version" after "version" or a name."""
_RELEASE_BEFORE = frozenset({"since", "until", "version", "release", "of", "before", "after", "in"})
"""Words before a number with one dot and no unit after it ("since 3.9", "as of 4.0", "shipped in 27.3") that make
it a release, not an amount."""
_YEAR = re.compile(rf"^(?:in |since |by |around |about )?{YEAR}$", re.I)
_DECADE = re.compile(rf"\b(?={YEAR})\d{{3}}0'?s\b")  # a year ending in 0, then "s": "the 1960s", "1990's"
_DURATION = re.compile(
    r"(?<![\w-])(decades?|years?|quarters?|months?|weeks?|days?|hours?|minutes?|seconds|(?<=\d )second)(?![\w-])|"
    r"(?<![12]\d\d0)(?<=\d)\s?(?:ns|µs|us|ms|s|secs?|mins?|h|hrs?)(?![\w-])",
    re.I,
)


def _release(label: str, text: str, next_pos: str, before: str, after_name: bool) -> bool:
    """Whether a span is a release number: written as one ("2.4.0"), or a number with one dot that is
    labelled a date (no date is written so), follows "since", "as of", "version" or a proper name ("Python
    3.12", ``after_name``) with no noun after it, or a whole number right after "version" ("version 10")."""
    if _VERSION.match(text):
        return True
    if _ONWARDS.match(text) and (before in _RELEASE_BEFORE or after_name):
        return True
    number = _DOTTED.match(text) is not None or (before == "version" and text.isdigit())  # "up to version 10"
    return number and next_pos not in ("NOUN", "PROPN") and (label == "DATE" or before in _RELEASE_BEFORE or after_name)


def question_word(
    label: str,
    text: str,
    next_pos: str,
    after_preposition: bool,
    fronted: bool,
    before: str = "",
    after_name: bool = False,
    counted: bool = False,
) -> str:
    """The question word or phrase that stands for a span with entity ``label`` and ``text`` (``before``:
    the word before the span, lower case; ``after_name``: that word is a proper name; ``counted``: the span
    is the direct object of the verb right before it, so a bare four-digit number is what the verb counts,
    "serves 2048", not a year; "released 2019" is no object)."""
    if _release(label, text, next_pos, before, after_name):
        word = "which version"
    elif when := _time_word(label, text, counted):
        word = when
    elif label == "CARDINAL":
        word = "how many" if next_pos in ("NOUN", "PROPN") else "what number"
    elif label in ("PERSON", "PEOPLE") and after_preposition:
        word = "whom"
    else:
        word = (FRONTED if fronted else IN_PLACE).get(label, "what")
    return word[0].upper() + word[1:] if fronted else word


def _time_word(label: str, text: str, counted: bool) -> str | None:
    """The question word of a date, a time or a duration: a frequency, an age, a duration, a decade, a year,
    a date; None for any other span, and for a time or a quantity none of these fits."""
    if label not in ("DATE", "TIME", "QUANTITY"):
        return None
    dated = label in ("DATE", "TIME")
    if dated and _FREQUENCY.match(text):
        return "how often"
    if dated and re.search(r"\bof age\b|\byears? old\b", text):
        return "how old"
    if dated and re.match(r"(?:at )?ages? \d", text, re.I):
        return "what age"
    if _DURATION.search(text):
        return "how long ago" if re.search(r"\bago$", text, re.I) else "how long"
    if label == "DATE" and _DECADE.search(text):
        return "which decade"
    if label == "DATE":
        year = _YEAR.search(text) and not (counted and text.isdigit())
        return "which year" if year else "what number" if text.isdigit() else "what date"
    return None


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
        after = t.right_edge.i + 1
        if t.dep_ == "appos" and after < clause.end and doc[after].text == ",":
            drop.add(after)  # "Cargo, the build tool, makes …" → "Cargo makes …", no comma before the verb
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


SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})  # "expl": the "there" of "there is"
_DO = {"VBZ": "does", "VBD": "did", "VBP": "do"}


def fronted_phrase(clause: Any, span: Any, kept: list[Any]) -> list[Any] | None:
    """The kept tokens before the main clause's subject when they end on a comma and hold ``span`` (a
    phrase fronted before the subject: "Every 6 weeks, …", "After 2 hours, …"), else None."""
    root = clause.root
    subjects = [c for c in root.children if c.dep_ in SUBJECT_DEPS and c.i >= span.end]
    if not subjects or span.root.dep_ in SUBJECT_DEPS:
        return None
    begin = subjects[0].left_edge.i
    phrase = [t for t in kept if t.i < begin]
    if not phrase or phrase[-1].text != "," or span.end > phrase[-1].i:
        return None
    return phrase


def inverted(clause: Any, rest: list[Any]) -> str | None:
    """The main clause (its kept tokens ``rest``, from the subject on) inverted for a question: its first
    auxiliary or a main "be" moved before the subject, otherwise "do" before it and the verb's lemma in
    place ("a cycle begins" → "does a cycle begin"); None when the verb has neither form."""
    root = clause.root
    helpers = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < root.i]
    subject_start = rest[0].i if rest else root.i
    if helpers and helpers[0].i > subject_start:
        moved, words = helpers[0], [t for t in rest if t.i != helpers[0].i]
        head = moved.text
    elif root.lemma_ == "be" and root.i > subject_start:
        moved, words, head = root, [t for t in rest if t.i != root.i], root.text
    elif root.tag_ in _DO and root.pos_ == "VERB" and root.i > subject_start:
        words, head = rest, _DO[root.tag_]
        return _with_lemma(head, words, root)
    else:
        return None
    return _with_lemma(head, words, moved)


def _with_lemma(head: str, words: list[Any], verb: Any) -> str:
    """``head`` then ``words`` (the verb in its lemma when ``head`` is a form of "do"), the subject's first
    word in lower case unless it is a name."""
    out = [head.lower()]
    for t in words:
        text = t.lemma_ if head in _DO.values() and t.i == verb.i else t.text
        first = t.i == words[0].i and t.pos_ != "PROPN" and not t.is_upper
        out.append((text.lower() if first else text) + t.whitespace_)
    return out[0] + " " + "".join(out[1:]).strip()


def _fronted_question(clause: Any, span: Any, label: str, kept: list[Any]) -> str | None:
    """The question for a span inside a phrase fronted before the subject: the phrase with the question
    word, then the main clause inverted; None when the phrase holds a verb of its own or the clause does
    not invert."""
    phrase = fronted_phrase(clause, span, kept)
    if phrase is None or any(t.pos_ in ("VERB", "AUX") for t in phrase):
        return None
    before = [t for t in phrase[:-1] if t.i < span.start and not (t.i == span.start - 1 and t.pos_ == "DET")]
    after = [t for t in phrase[:-1] if t.i >= span.end]
    bare = not before and not after
    word = question_word(label, span.text, "", bool(before), not before)
    if bare and label == "DATE" and word.lower() in ("what date", "which year", "what number"):
        word = "When"
    start, word = _release_of_name(_joined(before), word)
    lead = f"{start}{' ' if start and not start.endswith(' ') else ''}{word} {_joined(after)}".strip()
    rest = [t for t in kept if t.i > phrase[-1].i]
    main = inverted(clause, rest)
    if main is None:
        return None
    text = _LOOSE_END.sub("", re.sub(r"\s+([,;:)])", r"\1", " ".join(f"{lead} {main}".split())))
    return text[0].upper() + text[1:] + "?"


def _unrepeated(before: str, word: str, after: str) -> tuple[str, str]:
    """``before`` and ``after`` without the word the question phrase already says: "since version 16.04" is
    asked "since which version", not "since version which version" (with a determiner before the word:
    "in the year 2019" → "in which year"), and "is 8 weeks long" "is how long", not "how long long"."""
    if len(word.split()) < 2:
        return before, after
    last = word.split()[-1].lower()
    words = before.split()
    if words and words[-1].lower() == last:  # a whole word: "version-specific" is not "version"
        words = words[:-2] if len(words) >= 2 and words[-2].lower() in ("the", "a", "an") else words[:-1]
        before = " ".join(words) + " "
    if (following := re.match(rf"{re.escape(last)}(?![\w-])\s*", after, re.I)) is not None:
        after = after[following.end() :]
    return before, after


def _release_of_name(before: str, word: str) -> tuple[str, str]:
    """``before`` and the question word of a release number that follows the name it is a release of: "for
    Kubernetes version 1.19+" is asked "for which version of Kubernetes", not "for Kubernetes version which
    version". The name is the capitalised word right before (or before "version"), with the capitalised words
    before it ("Ingress NGINX"); a function word ("Since") is none. A lower-case name ("to etcd v3") is not told
    from a verb ("running 1.21") by its parse, so such a question keeps its words."""
    from spacy.lang.en.stop_words import STOP_WORDS  # spaCy parses every question made here

    if word.lower() != "which version":
        return before, word
    words = before.split()
    if words and words[-1].lower() == "version":
        words = words[:-1]
    first = len(words)
    while first > 0 and words[first - 1][:1].isupper() and words[first - 1].lower() not in STOP_WORDS:
        first -= 1
    if first == len(words):
        return before, word
    lead = " ".join(words[:first])
    return (lead + " " if lead else ""), f"{word} of {' '.join(words[first:])}"


def ask_around(clause: Any, span: Any, label: str, whole: bool = False) -> tuple[str, str, str]:
    """The question made from ``clause`` (a spaCy span, its side parts left out unless ``whole``) with
    ``span`` replaced by its question word, the name of the template used, and the words kept around the
    span. A determiner right before the span goes with it ("the Platform team" → "which organization")."""
    doc = clause.doc
    drop = set() if whole else side_parts(clause, span)
    kept = [t for t in clause if t.i not in drop and not span.start <= t.i < span.end]
    start = span.start
    if start > clause.start and doc[start - 1].pos_ == "DET":
        start -= 1
    first = min([t.i for t in kept] + [start])
    fronted = start == first
    next_pos = doc[span.end].pos_ if span.end < len(doc) else ""
    # "whom" after a preposition, and for people named by their role as a verb's object ("sponsored whom?")
    after_preposition = start > first and (
        doc[start - 1].pos_ == "ADP" or (label == "PEOPLE" and span.root.dep_ in ("dobj", "dative"))
    )
    context = " ".join(t.text for t in kept if t.i != start or start == span.start)
    if (asked := _fronted_question(clause, span, label, kept)) is not None:
        return asked, f"inverted:{label.lower()}", context
    before_word = doc[start - 1].lower_ if start > clause.start else ""
    after_name = start > clause.start and doc[start - 1].pos_ in ("PROPN", "X") and not doc[start - 1].like_num
    head = span.root.head
    counted = span.root.dep_ == "dobj" and head.pos_ == "VERB" and head.i == start - 1
    counted = counted and head.lemma_ not in _DATED_VERBS  # "serves 2048" counts; "expires 2030" dates
    word = question_word(label, span.text, next_pos, after_preposition, fronted, before_word, after_name, counted)
    before = _joined([t for t in kept if t.i < start])
    after = _agreeing(_joined([t for t in kept if t.i >= span.end]), span, fronted)
    before, after = _unrepeated(before, word, after)
    before, word = _release_of_name(before, word)
    gap = doc[span.end - 1].whitespace_ or (" " if after[:1].isalnum() else "")  # "Cargo, …, makes" → "What makes"
    text = f"{before}{' ' if before and before[-1] != ' ' else ''}{word}{gap}{after}"
    text = re.sub(r"\(\s+", "(", re.sub(r"\s+([,;:)])", r"\1", " ".join(text.split())))
    text = re.sub(r"([,;:])(\s*[,;:])+", r"\1", text)
    text = _LOOSE_START.sub("", _LOOSE_END.sub("", text))
    if not fronted and text:
        text = text[0].upper() + text[1:]
    return text + "?", template_name(label, fronted), context
