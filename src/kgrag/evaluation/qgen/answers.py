"""Whether a masked span can be the answer of a known-item question: its form, its label, its rarity.

A span is a whole answer when it reads as one (no verb inside, not a modifier of the next noun, not cut at a
joining word); its entity label is trusted only where the span's form bears it out (otherwise a plainer
question word is used, or none); and it is distinctive, so the question points at one passage rather than
at a word every passage has.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from typing import Any, Protocol

from kgrag.documents.words import content_words
from kgrag.evaluation.qgen.labels import PEOPLE, PERSON, NameLabels, names_people, person_shaped
from kgrag.evaluation.qgen.lookups import Lookups
from kgrag.evaluation.qgen.places import CITY, COUNTRY, PLACE_LABELS, PlaceNames
from kgrag.evaluation.qgen.referents import LINKING_ADVERBS
from kgrag.evaluation.qgen.wording import YEAR

MAX_ANSWER_TOKENS = 6
_CURRENCY = re.compile(r"[$€£¥]|\b(?:[A-Z]{3}|dollars?|euros?|pounds?|kron[aeo]r?|yen)\b")
_PERCENT = re.compile(r"%|\bper ?cent\b", re.I)
_DATE_FORM = re.compile(
    rf"\b{YEAR}(?:s\b)?|"
    r"\b\d{1,2}[/.-]\d{1,2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day|\b(?:centur(?:y|ies)|decades?|years?|quarters?|months?|weeks?|days?|"
    r"hours?|minutes?|seconds?|spring|summer|autumn|fall|winter|today|yesterday|tomorrow|daily|weekly|monthly|yearly|"
    r"annually)\b|(?<=\d)\s?(?:ns|µs|us|ms|s|secs?|mins?|h|hrs?)\b",
    re.I,
)
_AMOUNT_FORM = re.compile(
    r"[\d½¼¾⅓⅔]|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|eleven|twelve|"
    r"(?:thir|four|fif|six|seven|eigh|nine)teen|(?:twen|thir|for|fif|six|seven|eigh|nine)ty|"
    r"(?:ten|hundred|thousand|million|billion|trillion|dozen)s?|half|twice|thrice|\w+fold)\b",
    re.I,
)
_SENTENCE_ADVERBS = LINKING_ADVERBS | frozenset("overall similarly consequently still".split())
_SPEECH_VERBS = frozenset("say estimate explain think believe argue mention confirm admit reply recount".split())
"""Verbs of saying or thinking, whose subject is a person (writing counts in the past tense only: "CliDumper
writes on php://stdout" is software; "tells", "suggests", "asks", "notes", "states" are left out: "Git
tells you …", "ESLint suggests …")."""
_CONTRIBUTION_VERBS = frozenset(
    "fix implement remove update improve replace refactor land merge port rewrite add contribute rework migrate "
    "convert correct extend document upgrade simplify resolve investigate submit review".split()
)
"""Verbs of a contributor's work, whose subject in the past tense is a person as the changelogs and "this week
in" posts of a project write them ("Xanewok removed all traces of …", "MortimerGoro fixed the crash …");
"continues to improve" counts too. "Introduced" and "created" are left out: "PEP-660 introduced …", "Snowpack
created …"."""
_NAMED_ALONE = frozenset({"THING", "PERSON", "ORG", "PRODUCT", "WORK_OF_ART", "EVENT", "FAC", "GPE", "LOC"})
"""Labels spaCy gives a person named by a first name alone ("Marcelo" an organisation, "Ari" nothing,
"Johannes" a place)."""
_PLACE_PREPOSITIONS = frozenset("in at from to near within across throughout around outside inside".split())
_SOFTWARE_VERBS = frozenset(
    "run execute call write implement render compile build install deploy configure define declare import export "
    "load save upload push send connect migrate port integrate embed support available use set enable register log "
    "publish release".split()
)
"""Verbs (and "available") whose place is a program's: "runs in Concord", "written in Lua", "deployed to Phoenix"."""
_CHANNEL_PREPOSITIONS = frozenset({"over", "via", "through"})
"""Prepositions before a channel or a tool ("over Tor", "via Matrix"), not before a person named by a first name."""
_NUMBERED_POINT = re.compile(r"^(?:the\s+)?(?:week|day|month|quarter)\s+\d+$", re.I)
"""A numbered point of a schedule ("week 11"): "how long" misleads, and "which week" keeps the answer's word."""
_CLOCK = re.compile(r"\d:\d\d|\b[ap]\.?m\b|\bnoon\b|\bmidnight\b|o'clock", re.I)
MEASURES = frozenset({"DATE", "TIME", "CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
NAMES = frozenset({"PERSON", "GPE", "LOC", "NORP"}) | PLACE_LABELS
TOPICS = frozenset({"ORG", "PRODUCT", "FAC", "EVENT", "LAW", "WORK_OF_ART"})


class Frequencies(Protocol):
    """The corpus statistics an answer check reads (:class:`kgrag.evaluation.qgen.cloze.Rarity`)."""

    word_df: Counter[str]
    max_df: int

    def phrase_df(self, phrase: str) -> int: ...


def well_formed(span: Any, label: str) -> bool:
    """Whether a span reads as a whole answer: no verb inside (a tagger slip such as "Chen Wei presents
    Riffle"), no possessive ("Chen Wei's", "the latter's HTTP"), no sentence adverb opening a name
    ("Fortunately Pyramid"), not ending on a joining word ("between one and"), not a modifier of the noun
    after it, no word repeated back to back, a date or time without proper nouns and not used as a modifier
    ("a 30 minute call"), a name without numbers, not cut from an identifier ("doc" of "_doc")."""
    doc, tags = span.doc, {t.pos_ for t in span}
    following = doc[span.end] if span.end < len(doc) else None
    if tags & {"VERB", "AUX"} or span[-1].pos_ in ("CCONJ", "ADP", "DET", "PART") or _cut_from_word(span):
        return False
    modifier = span.root.dep_ in ("nmod", "amod") and span.root.head.i >= span.end
    if span.root.dep_ == "compound" or modifier or any(a.lower_ == b.lower_ for a, b in pairwise(span)):
        return False  # a modifier of the next noun ("Reed-Sternberg cells"), or a heading run into its text
    if (following is not None and following.tag_ == "POS") or any(t.tag_ == "POS" for t in span[1:]):
        return False  # "Chen Wei's …", or a possessive cut from its noun ("latter's HTTP", "Python's native …")
    if label not in MEASURES and span[0].pos_ == "ADV" and span[0].lower_.endswith("ly"):
        return False  # a sentence adverb taken into a name ("Fortunately Pyramid")
    if _adverb_phrase(span):
        return False  # "Briefly stated, …", "Simply put, …" tagged a name
    if label in MEASURES and ("PROPN" in tags or (following is not None and following.pos_ == "NOUN")):
        return label == "CARDINAL" and "PROPN" not in tags
    if label == "DATE" and following is not None and following.pos_ == "PROPN":
        return False  # a year naming something ("the 2017 Open Source Survey")
    if label not in MEASURES and following is not None and following.tag_ in ("NN", "NNS"):
        return False  # a name or term modifying the common noun after it ("CSS pixels", "FOSS projects")
    if label == "PERSON" and not (person_shaped(span) or (len(span) == 1 and span[0].pos_ == "PROPN")):
        return False  # a trusted lone name is a first name (:func:`trusted_label`)
    return not (label in NAMES and "NUM" in tags)


def _cut_from_word(span: Any) -> bool:
    """Whether the span is joined without a space to an underscore, a word character or a currency sign before
    it, or to an underscore or a wildcard star after it: a part of an identifier the tokenizer split ("doc" of
    "_doc", "Sec-Fetch-" of the header family "Sec-Fetch-*") or of an amount ("75k" of "$75k"), asked as if it
    were the whole."""
    doc = span.doc
    before = doc[span.start - 1] if span.start > 0 else None
    after = doc[span.end] if span.end < len(doc) else None
    last = before.text[-1:] if before is not None and not before.whitespace_ else ""
    joined_before = last == "_" or last.isalnum() or last in {"$", "€", "£", "¥"}  # "$" of "$75k" left in the question
    joined_after = after is not None and not doc[span.end - 1].whitespace_ and after.text[:1] in ("_", "*")
    return joined_before or joined_after


def _adverb_phrase(span: Any) -> bool:
    """A span opening its sentence with a sentence adverb taken into a name ("Overall Jaeger uses …"), or a
    one-word span opening its sentence that ends in "-ly" and is followed by a participle and a comma: an
    adverbial phrase ("Briefly stated, …", "Simply put, …"), whatever the tagger made of it."""
    doc, end = span.doc, span.end
    if span.start != span.sent.start:
        return False
    if len(span) > 1 and span[0].lower_ in _SENTENCE_ADVERBS:
        return True
    return (
        len(span) == 1
        and span[0].lower_.endswith("ly")
        and end + 1 < len(doc)
        and doc[end].tag_ in ("VBN", "VBD")
        and doc[end + 1].text == ","
    )


def distinctive(answer: str, rarity: Frequencies) -> bool:
    """The answer's phrase occurs in few chunks, and it holds a number or a word that few chunks have."""
    words = content_words(answer)
    if not words or (answer.isdigit() and len(answer) < 2):
        return False
    df = rarity.phrase_df(answer)
    rare_word = min(rarity.word_df[w] for w in words) <= rarity.max_df
    return 0 < df <= rarity.max_df and (rare_word or any(ch.isdigit() for ch in answer))


def trusted_label(
    span: Any, sent: Any, label: str, labels: NameLabels | None = None, lookups: Lookups | None = None
) -> str:
    """The entity label when the span's shape bears it out, else a plainer one (:func:`_borne_out`); a
    place named with its region after a comma is labelled ``CITY`` and asked "which city" (:func:`_city`); a
    place the gazetteer of ``lookups`` and the corpus's ``labels`` agree on is asked by its kind ("which
    country", :func:`_place_kind`); a lone first name of its list is a person (:func:`_first_name`); a
    name or phrase that names people by their role or handle is labelled ``PEOPLE`` and asked "who"
    (:func:`kgrag.evaluation.qgen.labels.names_people`), unless it is already a trusted person; one proper
    noun that says or thinks something (:func:`_speaker`) gets no question ("")."""
    trusted = _borne_out(span, sent, label, labels)
    found = lookups or Lookups()
    if _city(span) and (trusted == "GPE" or (found.places is not None and found.places.kind(span.text) is not None)):
        return CITY  # "Madison, WI" is a city, though spaCy and the list of first names call it a person
    if trusted in ("GPE", "LOC") and (kind := _place_kind(span, labels, found.places)):
        return kind
    if trusted in _NAMED_ALONE and _first_name(span, labels, found):
        return PERSON
    if trusted in _NAMED_ALONE and labels is not None and person_shaped(span) and labels.named_in_full(span.text):
        return PERSON  # "Yuito Murase" labelled a product here, a person wherever else the corpus names him
    if trusted not in MEASURES | {"", PERSON} and names_people(span):
        return PEOPLE
    named = label not in NAMES - {PERSON} or person_shaped(span)  # "NASA said" is a firm; "Nate Hunzaker wrote" not
    if trusted not in MEASURES | {PERSON} and named and _speaker(span):
        return ""  # "Schneppenheim estimates …": a person named by one word; "what" misleads, "who" is unsure
    return trusted


def _city(span: Any) -> bool:
    """Whether a place is named with the region or country it lies in after a comma ("Houston, TX", "Sydney,
    Australia"): a city, asked "which city" rather than "what"; not one place of a list ("Oslo, Bergen and …")."""
    doc, end = span.doc, span.end
    region = doc[end + 1] if end + 1 < len(doc) else None
    if region is None or doc[end].text != "," or len(region.text) < 2:
        return False
    if region.ent_type_ != "GPE" and not (region.is_upper and len(region.text) == 2):  # "TX": a state's code
        return False
    after = doc[end + 2] if end + 2 < len(doc) else None
    return after is None or (after.lower_ not in ("and", "or", ",") and after.ent_type_ != "GPE")


def _place_kind(span: Any, labels: NameLabels | None, places: PlaceNames | None) -> str | None:
    """The kind of place (:mod:`kgrag.evaluation.qgen.places`) a span labelled a place is, where the gazetteer
    holds its name, the corpus's labels bear it out as a place (:meth:`NameLabels.bears_out_place`) and the
    sentence puts something there (:func:`_located`). An acronym is a country's ("USA") or no place ("SAN")."""
    if places is None or labels is None or not _located(span) or not labels.bears_out_place(span.text):
        return None
    kind = places.kind(span.text)
    return None if span.text.isupper() and kind != COUNTRY else kind


def _first_name(span: Any, labels: NameLabels | None, lookups: Lookups) -> bool:
    """Whether a one-word proper noun is a person named by the first name: in the list of first names or
    opening a full name the corpus labels a person's (:meth:`NameLabels.opens_full_name`: "Amritpan" of
    "Amritpan Kaur"), never written in lower case in the corpus ("hugo server" is a program) and not a place:
    labelled one in most of its mentions there and held by the gazetteer ("Sydney"; spaCy's place label alone
    is no proof, it calls "Johannes" a place); not after "over", "via" or "through" ("over Tor": a network),
    and not one the corpus describes as a thing (:meth:`NameLabels.described_as_thing`)."""
    word, names = span[0], lookups.first_names
    if labels is None or len(span) != 1 or word.pos_ != "PROPN" or not word.is_title:
        return False
    if word.dep_ == "pobj" and word.head.lower_ in _CHANNEL_PREPOSITIONS:
        return False  # "sent over Tor", "via Matrix": a channel, not a person
    if labels.described_as_thing(word.text):
        return False  # "Verona is a research language"
    listed = (names is not None and names.holds(word.text)) or labels.opens_full_name(word.text)
    if not (listed and labels.never_lower_case(word.text)):
        return False
    places = lookups.places
    return not (labels.labelled_place(word.text) and (places is None or places.kind(word.text) is not None))


def _located(span: Any) -> bool:
    """Whether the span is the object of a preposition of place ("based in", "hailing from", "a charity in")
    that no verb of software governs ("runs in Concord", "rendered in Jinja", "log in to Concord"): a town's
    name called, configured or run in is a product's. A preposition that qualifies a noun ("64% in the United
    States", "a charity in Leeds") is the noun's, whatever verb governs the noun."""
    preposition = span.root.head
    if span.root.dep_ != "pobj" or preposition.lower_ not in _PLACE_PREPOSITIONS:
        return False
    governor = preposition.head
    governors = (governor,) if governor.pos_ in ("NOUN", "PROPN", "NUM") else (governor, governor.head)
    return not any(t.lemma_.lower() in _SOFTWARE_VERBS for t in governors if t.pos_ in ("VERB", "ADJ"))


def _speaker(span: Any) -> bool:
    """Whether the span is one proper noun, or a name written like a person's, that is the subject of a verb of
    saying or thinking ("Jacek explains", "Sapphi wrote", "Nate Hunzaker wrote") or of a contributor's work in
    the past tense ("Xanewok removed …", "Darley continues to improve …"): a person whatever spaCy labelled it,
    whom the corpus's labels did not bear out."""
    root = span.root
    verb, lemma = root.head, root.head.lemma_.lower()
    said = lemma in _SPEECH_VERBS or (lemma == "write" and verb.tag_ == "VBD")
    said = said or (lemma in _CONTRIBUTION_VERBS and verb.tag_ == "VBD") or lemma == "continue"
    one = len(span) == 1 and root.pos_ == "PROPN" and not root.text.isupper()  # "NASA said" is an organisation
    one = one or person_shaped(span)
    return one and root.dep_ == "nsubj" and verb.pos_ == "VERB" and said


def _borne_out(span: Any, sent: Any, label: str, labels: NameLabels | None) -> str:
    """The entity label when the span's shape bears it out, else a plainer one: a name must be written as
    one (capitalised words after a place's "the", not a lone capitalised first word of the sentence), an
    amount of money needs a currency, a percentage a percent sign. A small model mislabels text outside its
    training domain ("Mucus" as a place), and a question asking "which place" for a fluid misleads more than
    "what". A
    person needs two or three capitalised proper nouns (lower-case particles inside allowed) with no
    determiner before them, and the corpus's ``labels`` of the name must agree
    (:meth:`NameLabels.bears_out_person`), or one capitalised word the corpus uses as the first name of a
    person it names in full (:meth:`NameLabels.first_name`), else it is asked with "what" (and with
    nothing where the corpus leaves it unsure, :func:`_person_label`); a date or a time must look like one
    (a year, a month, a day, a unit of time, a clock time) and not be a numbered point of a schedule ("week
    11"), and a number or a quantity hold a digit or a number word: otherwise the label is "" and no
    question is asked."""
    if label in (NAMES | TOPICS | {"LANGUAGE"}) - {"PERSON"}:
        the_place = label in ("GPE", "LOC") and len(span) > 1 and span[0].lower_ == "the"  # "the United States"
        written_as_name = all(t.is_title or t.is_upper or t.like_num or t.is_punct for t in span[int(the_place) :])
        lone_opener = len(span) == 1 and span.start == sent.start
        acronym = len(span) == 1 and span[0].text.isupper() and label != "GPE"  # a test, a virus, a drug class
        return label if written_as_name and not lone_opener and not acronym else "THING"
    if label == "PERSON":
        return _person_label(span, labels)
    if label in ("DATE", "TIME") and not (
        _DATE_FORM.search(span.text) or (label == "TIME" and _CLOCK.search(span.text))
    ):
        return ""  # neither a date nor a duration by its form ("12-17ns" labelled a date): no question word fits
    if label in ("DATE", "TIME") and _NUMBERED_POINT.match(span.text):
        return ""  # "week 11": no question word fits
    if label in ("CARDINAL", "QUANTITY") and not _AMOUNT_FORM.search(span.text):
        return ""  # no digit and no number word ("fixed-size" labelled a number): "what number" misleads
    if label == "MONEY" and not _CURRENCY.search(span.text):
        return "QUANTITY"
    if label == "PERCENT" and not _PERCENT.search(span.text):
        return "QUANTITY"
    return label


def _person_label(span: Any, labels: NameLabels | None) -> str:
    """PERSON when the span is a person's name by its form and by the corpus's labels, THING ("what") when
    it is not, "" (no question) when the labels bear it out but a later word is one the corpus writes in
    lower case and the first word vouches for no person (:meth:`NameLabels.unsure_person`): "Fluent Bit"
    is no one to ask "who" about, and "John Hall" no thing to ask "what" about."""
    determined = span.start > 0 and span.doc[span.start - 1].pos_ == "DET"  # "the Prometheus UI"
    if len(span) == 1 and labels is not None and span[0].is_title and not determined:
        return PERSON if labels.first_name(span.text) else "THING"  # "Iris", named in full elsewhere
    borne_out = labels is None or labels.bears_out_person(span.text) or labels.named_in_full(span.text)
    person = person_shaped(span) and not determined and borne_out
    if person and labels is not None and labels.unsure_person(span.text):
        return ""
    return PERSON if person else "THING"


def unfit_answer(span: Any, label: str, answer: str, rarity: Frequencies) -> str | None:
    """Why the span cannot be an answer: no question word fits its form (label ""), it is not a whole
    answer, or it is not distinctive."""
    if not label:
        return "question word unsure: the label is not borne out by the span's form"
    if len(span) > MAX_ANSWER_TOKENS or not well_formed(span, label):
        return "span is not a whole answer"
    return None if distinctive(answer, rarity) else "answer not distinctive"
