"""Whether a known-item question's span sits where a question can be asked of it, read from the parse.

The wording of :mod:`kgrag.evaluation.qgen.wording` replaces a span by its question word; some places in
a sentence make that question unusable however well the words are chosen, and the parse shows them:

- :func:`fronted_clause`: the span sits in a phrase fronted before the subject that the wording could not
  invert, such as a participial or adverbial clause with its own verb ("Created in 2012, Prometheus has
  been …" → "Created in which year, Prometheus has been …?");
- :func:`outside_referent`: the question's subject or a place it names lies outside it: a main-clause
  subject with a definite determiner that names nothing (no name, number or compound term: "The first
  version was released in …"), or "here"/"there" pointing at the text around the sentence ("the best
  type to use there");
- :func:`coordinated`: the span, or a phrase it belongs to below its verb, is one side of a coordination
  ("107 bytes on Linux and 103 bytes on macOS"): the other side shows what is asked, or the question asks
  for one of several;
- :func:`second_statement`: the span's clause is joined by "and" to a later clause with its own subject ("HPA
  reads metrics via …, and the Prometheus Adapter handles the Prometheus connection"): the question would
  carry a second statement that is not part of what it asks;
- :func:`tacked_on`: the span opens a phrase tacked on after a comma with no verb of its own at the sentence's end
  ("… may replace up to 60% of your salary, up to $12,000 per month"): the question would end on a loose "…, what
  amount of money per month?" that says nothing of what the amount is;
- :func:`title_cut`: a capitalised verb form, adverb or function word after a word that is not
  capitalised (lower case, or an all-capitals constant) marks a title or a table row run into the
  sentence ("Scaling and Federating Prometheus on the … blog is a good starting point", "Constant
  Description WSAEINTR Indicates …"), which the question would cut apart;
- :func:`unsure_word`: the question word cannot be told from the span's form: a common noun that is the agent of a
  passive ("addressed by the PR author": a person or a thing), a name written like a person's that the corpus does not
  bear out as one ("maintained by Pig Fang": a person or a firm, "what" misleads either way), or a number counting a
  singular or proper noun ("for at least one tick", "status code 400 Bad Request": a label or a bound, not a count), a
  range of numbers ("a range of 0 to 3"), a ratio ("16:9"), an HTTP status code ("308 redirects"), or a "person" named
  right after a number (a release's name: "Ubuntu 24.10 Oracular Oriole").

Each returns the reason (counted in the generation report) or None.
"""

from __future__ import annotations

import re
from typing import Any

from kgrag.evaluation.qgen.labels import person_shaped
from kgrag.evaluation.qgen.wording import SUBJECT_DEPS, fronted_phrase, side_parts

_SUBJECTS = SUBJECT_DEPS - {"expl"}  # a subject that can name something
_DEFINITE = frozenset("the this that these those".split())
_POINTING = frozenset("here there".split())
_TITLE_TAGS = frozenset({"VBG", "VBN", "VBD", "VBZ", "VBP", "VB", "RB", "CC", "DT", "IN", "PRP", "TO"})


def _kept(clause: Any, span: Any) -> list[Any]:
    drop = side_parts(clause, span)
    return [t for t in clause if t.i not in drop and not span.start <= t.i < span.end]


def fronted_clause(clause: Any, span: Any, template: str) -> str | None:
    """Why the span sits in a fronted phrase the question leaves uninverted, or None."""
    if template.startswith("inverted:") or fronted_phrase(clause, span, _kept(clause, span)) is None:
        return None
    return "answer in a phrase fronted before the subject, not inverted ('Created in which year, X has …?')"


def _names_something(tokens: list[Any], span: Any) -> bool:
    """Whether a phrase holds a name, a number, a compound term ("the info function") or the span."""
    return any(
        t.pos_ in ("PROPN", "NUM")
        or t.dep_ == "compound"
        or t.ent_type_ not in ("", "ORDINAL")
        or span.start <= t.i < span.end
        for t in tokens
    )


def outside_referent(clause: Any, span: Any) -> str | None:
    """Why the question leans on a subject or a place named outside it, or None."""
    kept = _kept(clause, span)
    if any(t.lower_ in _POINTING and t.dep_ != "expl" for t in kept):
        return "question points at the text around it ('here', 'there')"
    for subject in (c for c in clause.root.children if c.dep_ in _SUBJECTS):
        words = list(subject.subtree)
        definite = any(t.dep_ == "det" and t.lower_ in _DEFINITE and t.head.i == subject.i for t in words)
        if definite and subject.pos_ == "NOUN" and not _names_something(words, span):
            return "subject names nothing the question shows ('The first version was released …')"
    return None


def coordinated(span: Any) -> str | None:
    """Why the span is one side of a coordination, or None: the phrase it belongs to (up to its nearest
    verb, not into the clauses below it) holds a nominal conjunct."""
    top = span.root
    while top.head.i != top.i and top.head.pos_ not in ("VERB", "AUX"):
        top = top.head
    stack = [c for c in top.children if c.pos_ not in ("VERB", "AUX")]
    while stack:
        tok = stack.pop()
        if tok.dep_ == "conj" and tok.pos_ in ("NOUN", "PROPN", "NUM"):  # "old and esoteric" gives nothing away
            return "answer is one side of a coordination ('X and Y')"
        stack += [c for c in tok.children if c.pos_ not in ("VERB", "AUX")]
    return None


def nearest_verb(span: Any) -> Any:
    """The span's nearest verb up the parse (its clause's head), or the sentence's root when none is above."""
    tok = span.root
    while tok.pos_ not in ("VERB", "AUX") and tok.head.i != tok.i:
        tok = tok.head
    return tok


def second_statement(clause: Any, span: Any) -> str | None:
    """Why the question would keep a second statement, or None: the verb of the span's clause has a later
    conjunct verb inside ``clause`` with a subject of its own, joined by "and" (not "but", whose contrast
    often belongs to what is asked)."""
    verb = nearest_verb(span)
    if [t.lower_ for t in verb.children if t.dep_ == "cc" and t.i >= span.end][:1] != ["and"]:
        return None
    for conj in verb.children:
        later = conj.dep_ == "conj" and conj.pos_ in ("VERB", "AUX") and span.end <= conj.i < clause.end
        if later and any(c.dep_ in ("nsubj", "nsubjpass") for c in conj.children):
            return "question keeps a second statement joined by 'and' (', and the adapter handles …')"
    return None


_TACKED_LEADS = frozenset("up to only about over around nearly almost at least most just roughly approximately".split())
"""Words that may stand between the comma and a tacked-on span ("…, up to 8 weeks"), when not part of it."""


def tacked_on(span: Any) -> str | None:
    """Why the span opens a phrase tacked on after a comma at the end of its sentence, or None: the token
    before it (past any of :data:`_TACKED_LEADS`) is a comma, and no verb follows it in the sentence."""
    doc, sent = span.doc, span.sent
    i = span.start - 1
    while i > sent.start and doc[i].lower_ in _TACKED_LEADS:
        i -= 1
    if i <= sent.start or doc[i].text != ",":
        return None
    if any(t.pos_ in ("VERB", "AUX") for t in doc[span.end : sent.end]):
        return None
    return "question word in a phrase tacked on after a comma ('…, up to $12,000 per month' asked '…, what amount?')"


def title_cut(sent: Any) -> str | None:
    """Why the sentence holds a title run into it (a capitalised verb form, adverb or function word after
    its first word), or None."""
    for tok in sent[1:]:
        before = sent.doc[tok.i - 1]
        if not tok.is_title or tok.text == "I" or before.is_title or not before.is_alpha:
            continue  # a capital after a name is part of the name ("Cloud Native Computing Foundation")
        if tok.tag_ in _TITLE_TAGS or (tok.lower_.endswith("ing") and len(tok) > 5 and tok.ent_type_ != "GPE"):
            return "a title run into the sentence (a capitalised verb form or function word mid-sentence)"
    return None


_IPV4 = re.compile(r"(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}")
_SPAN_OF_TIME = re.compile(
    r"\b(?:milliseconds?|ms|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|decades?)\b", re.I
)
_COPULAS = frozenset({"be", "seem", "become", "remain", "stay"})
"""A span of time, asked "how long": as a verb's subject it reads "how long are stored"; only a copula keeps
it a question ("30 seconds is the default" → "how long is …"). A percentage keeps what it is of ("What
percentage of requests …"), so it is not refused."""


def unsure_word(span: Any, label: str) -> str | None:
    """Why no question word fits the span for sure, or None."""
    root = span.root
    agent = root.dep_ == "pobj" and root.head.dep_ == "agent"  # "… by X" of a passive
    if agent and root.pos_ == "NOUN":
        return "question word unsure: a common noun as the agent of a passive (a person or a thing)"
    if agent and label != "PERSON" and person_shaped(span):
        return "question word unsure: a name as the agent of a passive ('maintained by Pig Fang': a person or a firm)"
    counted = root.head if root.dep_ == "nummod" else span.doc[span.end] if span.end < len(span.doc) else None
    if why := _range_or_version(span, label):
        return why
    if label == "CARDINAL" and counted is not None and counted.pos_ in ("NOUN", "PROPN") and counted.tag_ != "NNS":
        return "question word unsure: a number before a singular or proper noun (a label or a bound, not a count)"
    if label == "CARDINAL" and counted is not None and counted.pos_ == "NOUN" and re.search(r"\d\.\d", span.text):
        return "question word unsure: a number with a decimal point before a noun ('2.7 users': a version, no count)"
    if _IPV4.fullmatch(span.text.strip()):
        return "question word unsure: an IP address ('0.0.0.0') asked as a version or a number"
    timed = label in ("DATE", "TIME", "QUANTITY") and _SPAN_OF_TIME.search(span.text)
    if timed and root.dep_ in ("nsubj", "nsubjpass") and root.head.lemma_ not in _COPULAS:
        return "question word unsure: a span of time as a verb's subject ('6 hours are stored': 'how long are stored')"
    return _not_a_quantity(span, label)


_VERSION = re.compile(r"\d+\.\d+\.\d+")
_RANGE_WORDS = frozenset({"to", "-", "–", "—"})


def _range_or_version(span: Any, label: str) -> str | None:
    """Why a number is not one value: a range ("0 to 3", "1933-2020"), one end of a range the span stops at or
    starts from ("around 3x" of "around 3x to 5x slower"), or a version labelled a date ("1.95.0 and later")."""
    if label not in ("CARDINAL", "DATE", "QUANTITY", "PERCENT", "MONEY", "TIME"):
        return None
    if label in ("CARDINAL", "DATE") and re.search(r"\d\s*(?:to|-|–)\s*\d", span.text):
        return "question word unsure: a range of numbers ('0 to 3', '1933-2020') asked as one number or date"
    doc = span.doc
    after, before = doc[span.end : span.end + 2], doc[max(0, span.start - 2) : span.start]
    ends_one = len(after) == 2 and after[0].text in _RANGE_WORDS and _numeric(after[1])  # "3x" of "3x to 5x"
    starts_one = len(before) == 2 and before[1].text in _RANGE_WORDS and _numeric(before[0])  # "5x" of it
    if ends_one or starts_one:
        return "question word unsure: one end of a range ('around 3x' of '3x to 5x') asked as the whole"
    if label in ("DATE", "TIME") and _VERSION.search(span.text):
        return "question word unsure: a version ('1.95.0') labelled a date"
    return None


def _numeric(token: Any) -> bool:
    return token.like_num or any(ch.isdigit() for ch in token.text)


_IDENTIFYING = frozenset("code codes status redirect redirects response responses error errors".split())


def _not_a_quantity(span: Any, label: str) -> str | None:
    """Why a number or a name is not what its question word asks for: a ratio, an HTTP status code, or a
    "person" named right after a number (a release's name)."""
    before = span.doc[span.start - 1] if span.start > 0 else None
    after = span.doc[span.end : span.end + 2]
    if label == "PERSON" and before is not None and before.like_num:
        return "question word unsure: a name right after a number ('Ubuntu 24.10 Oracular Oriole': a release's name)"
    if label != "CARDINAL":
        return None
    if re.search(r"\d\s*[:/]\s*\d", span.text):
        return "question word unsure: a ratio or a time ('16:9') asked as a number"
    if any(re.fullmatch(r"[1-5]\d\d", t.text) for t in span) and any(t.lower_ in _IDENTIFYING for t in after):
        return "question word unsure: an HTTP status code ('308 redirects') asked as a count"
    return None
