"""Whether a known-item question reads well, has one answer and needs the text, found without an LLM.

The defect checks of :mod:`kgrag.evaluation.qgen.defects` reject lines that are not prose; a blind read
of what passed them still found questions a reader cannot use. These checks reject each kind found
(each returns the reason, counted in the generation report, or None):

- :func:`fragment_defect`: the evidence is not one well-formed sentence: a table row, no main verb or no
  subject (a heading or a list), a colon that introduces a list or runs two lines together, several
  capitalised words mid-sentence outside names (table-of-contents or heading runs), words run together
  by PDF extraction ("beanshaped": a word the corpus has only once that splits into two words it has
  often; "cancerThe", "1ACancers": a capital inside a word);
- :func:`leaning_defect`: the question leans on a referent outside it ("empty it", "In this case",
  "these patients", "both types") or on the text around it ("the following considerations", "listed
  below", an opening "Yes," or "No." an FAQ's answer begins with, or "Keep in mind that");
- :func:`wording_defect`: the question word does not fit the span (an age asked "how long", a
  frequency asked without its "every", a duration asked after "during" or before "of"), the span is
  one end of a range ("what number to 30"), one of several ("like what or Silvadene", "What, Ewing
  sarcoma, and …"), ends in an aside after a joining word whose clause was left out ("… and, at the
  same time?"), named after a common noun ("the protein what") or a part of the document
  ("Chapter …"), the question word sits in brackets or opens a phrase cut from its sentence ("In what,
  …") or an opening phrase whose clause is left uninverted ("How often, a new cycle begins?"), or a comma
  is left between a subject and its verb; or the span sits inside a phrase whose words stay around the
  question word: a modifier between a noun's other modifiers and the noun ("the smaller what standardized
  schemes"), a number after an adjective of its own ("the other what percentage"), a noun after a quantity
  ("a lot of what do");
- :func:`imperative_answer`: the answer is the verb opening an imperative ("Delete all extracted
  files"), a word the corpus also writes in lower case, not a name;
- :func:`guessable`: the answer can be told without the text: a weekday or month name, or the word
  that nearly always follows the words before it in the corpus ("Monday through" → "Friday");
- :func:`ambiguous`: another passage holds the question's rarest words but not the answer, so the
  question may have another answer there.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from typing import Any, Protocol

from kgrag.documents.words import content_words

SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})  # a verb's own subject
_LIST_COLON = re.compile(r"(?<!\d):\s*[A-Z]")
_GLUED_CASE = re.compile(
    r"[a-z]{2,}(?:The|This|These|Your|You|It|If|In|When|Some|Most|Ask|For|We|They)\b|[A-Z][A-Z][a-z]{3,}"
)
_LEANING_WORDS = frozenset("it its they them their theirs this these those such both he him his she her".split())
_PEOPLE = frozenset("he him his she her".split())
_POINTING_TEXT = re.compile(
    r"(?i)\bthe following\b|\bas follows\b|\b(?:shown|listed|described|explained|see|given) (?:below|above)\b|"
    r"\bthe (?:above|aforementioned|latter|former)\b|"
    r"^(?:yes|no)[,.!] |^(?:keep|bear) in mind\b|^(?:note|remember|notice) that\b"
)
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april june july august "
    "september october november december".split()
)
_QUANTITY_NOUNS = frozenset(
    "lot lots most some many few all one each none plenty majority couple bunch handful dozens hundreds "
    "thousands millions".split()
)
"""Words that take "of" before the thing they count ("a lot of Python programs", "most of the options"):
asked "what" after them, a question reads "a lot of what do …"."""
_NOUN_PHRASE_MODIFIERS = frozenset({"amod", "compound", "nummod", "poss", "nmod"})  # not "det": "what" takes its place
_BAD_BEFORE_DURATION = frozenset("during than the over every each per".split())
_RANGE_NEXT = frozenset({"to", "-", "–", "and", "or"})
_ONE_OF_SEVERAL = re.compile(
    r"\b(?:what(?: \w+)?|which \w+|how \w+|who|whom),?\s+(?:or|and)\b|"
    r"\b(?:or|and|like|including|such as)\s+(?:what|which|who|whom|how)\b"
)
_FRONTED_PHRASE = re.compile(r"^(?:in|for|during|after|before|with|at|on|from) (?:what|which \w+),")
_FIRST_OF_SEVERAL = re.compile(r"^(?:what|which \w+|who)(?:,| [–—-] )")
_JOINING_OPENERS = frozenset("and or nor yet".split())
_DOUBLED = re.compile(r"\bwhich (?:what|which|who|whom|how)\b")
_DOCUMENT_PART = frozenset("chapter part section table figure appendix page listing".split())
_FRONTED_ADVERBIAL = re.compile(r"^(?:[\w-]+ ){0,2}(?:what|which|how|who|whom)\b[^,]{0,24}, ", re.I)
_CUT_COORDINATION = re.compile(r"\b(?:and|or|but), [^,?]*\?$")
_SUBJECT_COMMA = re.compile(r"^[^,]+, (?:is|are|was|were|has|have|can|may|will|does|do|should|must)\b")
GLUE_MIN_CHARS, GLUE_PART_CHARS = 8, 3
AMBIGUITY_WORDS = 2
GUESS_MIN_SEEN, GUESS_SHARE = 3, 0.6


class Counts(Protocol):
    """Corpus statistics the checks read (:class:`kgrag.evaluation.qgen.cloze.Rarity`)."""

    word_df: Counter[str]
    lower_df: Counter[str]
    chunks_with: dict[str, set[str]]

    def contains(self, chunk_id: str, phrase: str) -> bool: ...

    def followers(self, first: str, second: str) -> Counter[str]: ...


def _glued(word: str, counts: Counts) -> bool:
    """A lower-case word the corpus has in at most one passage that splits into two words each found in
    several passages ("beanshaped" = "bean" + "shaped")."""
    if len(word) < GLUE_MIN_CHARS or not word.isalpha() or counts.word_df[word] > 1:
        return False
    return any(
        counts.word_df[word[:i]] >= 2 and counts.word_df[word[i:]] >= 2
        for i in range(GLUE_PART_CHARS, len(word) - GLUE_PART_CHARS + 1)
    )


def _capitalised_run(sent: Any, counts: Counts) -> bool:
    """Capitalised words right after lower-case ones: three or more outside names (headings or a table
    of contents run together: "Blood tests Imaging tests Biopsy …"), or one followed by a word that the
    corpus writes after it in lower case elsewhere ("Watery stool Urinary incontinence …" beside
    "urinary incontinence": two list items run together)."""
    hits = [t for prev, t in pairwise(sent) if t.is_title and prev.is_lower and prev.is_alpha and t.text != "I"]
    doc = sent.doc
    return len([t for t in hits if not t.ent_type_]) >= 3 or any(
        t.i + 1 < len(doc) and counts.lower_df[f"{t.lower_} {doc[t.i + 1].text}"] >= 1 for t in hits
    )


def fragment_defect(sent: Any, counts: Counts) -> str | None:
    """Why a parsed sentence is not one well-formed sentence, or None."""
    if "|" in sent.text:
        return "table row"
    if sent[0].lower_ in _JOINING_OPENERS:
        return "sentence opens with a joining word (leans on the one before)"
    if _LIST_COLON.search(sent.text):
        return "colon before a capitalised word (a list or two lines run together)"
    if _capitalised_run(sent, counts):
        return "capitalised words run together (headings or a table of contents)"
    if _GLUED_CASE.search(sent.text) or any(_glued(t.lower_, counts) for t in sent if t.is_lower):
        return "words run together (text extraction)"
    root = sent.root
    if root.pos_ not in ("VERB", "AUX"):
        return "no finite main verb (a fragment)"
    imperative = root.tag_ == "VB" and root.i == sent.start
    if not imperative and not any(c.dep_ in SUBJECTS for c in root.children):
        return "main verb has no subject (a fragment)"
    return None


def leaning_defect(question: str) -> str | None:
    """Why a question leans on something outside it (a pronoun or a demonstrative, text before or after
    it: "the following", "listed below", an opening "Yes," or "Keep in mind that"), or None. "He", "his"
    and "her" are kept when the question names someone before them."""
    if _POINTING_TEXT.search(question):
        return "question points at text around it ('the following', 'below', 'Yes,')"
    words = re.findall(r"[A-Za-z]+", question)
    for i, word in enumerate(words):
        lower = word.lower()
        named = [w for w in words[1:i] if w[0].isupper() and w.lower() not in _LEANING_WORDS | _CALENDAR]
        if lower in _PEOPLE and named:
            continue
        if lower in _LEANING_WORDS:
            return "question leans on a referent outside it (a pronoun or 'this')"
    return None


def wording_defect(span: Any, question: str) -> str | None:
    """Why the question word of ``question`` does not fit ``span`` where it stands, or None."""
    doc, lower = span.doc, question.lower()
    word = "how old" if "how old" in lower else "how long" if "how long" in lower else ""
    before = doc[span.start - 1] if span.start > 0 else None
    after = doc[span.end] if span.end < len(doc) else None
    if before is not None and before.lemma_.lower() == "age" and word != "how old":
        return "question word does not fit (an age asked as a length of time)"
    if word == "how long" and (
        (before is not None and before.lower_ in _BAD_BEFORE_DURATION)
        or span[0].pos_ == "DET"
        or (after is not None and after.lower_ == "of")
    ):
        return "question word does not fit (a duration asked in the wrong place)"
    if after is not None and after.lower_ in _RANGE_NEXT and span.end + 1 < len(doc) and doc[span.end + 1].like_num:
        return "answer is one end of a range"
    modifier = before is not None and before.dep_ in ("amod", "compound") and span.start <= before.head.i < span.end
    if before is not None and (before.pos_ == "NOUN" or modifier) and not span[0].like_num:
        return "answer is named after a common noun or a modifier (ask 'which protein', not 'the protein what')"
    if span[0].lower_ in _DOCUMENT_PART or (
        before is not None and before.lower_ in _DOCUMENT_PART and span[0].like_num
    ):
        return "answer is a part of the document (a cross-reference)"
    why = _inside_phrase(span, before) or _phrasing_defect(question)
    if why is None and _FRONTED_ADVERBIAL.match(question) and span.root.dep_ not in SUBJECTS:
        return "question word in an opening phrase, the clause after it not inverted ('How often, a cycle begins?')"
    return why


def _inside_phrase(span: Any, before: Any) -> str | None:
    """Why the span is cut out of a phrase whose other words stay around the question word, or None: the
    question word would read "the smaller what standardized schemes", "the other what percentage" or "a lot
    of what". A unit after its number ("greater than 10 what?") reads as a question and is asked."""
    if before is None:
        return None
    if before.dep_ in _NOUN_PHRASE_MODIFIERS and before.head.i >= span.end and span.root.head.i >= span.end:
        return "answer sits inside a noun phrase ('the smaller NIST standardized schemes')"
    if span[0].like_num and before.dep_ == "amod" and span.start <= before.head.i < span.end:
        return "answer is a number with an adjective of its own before it ('the other 10%', 'top 1%')"
    if before.lower_ == "of" and before.head.lemma_.lower() in _QUANTITY_NOUNS and before.head.i < before.i:
        return "answer is counted by a quantity before it ('a lot of Python programs')"
    return None


def _phrasing_defect(question: str) -> str | None:
    """Why the question's own wording around its question word does not read, or None."""
    lower = question.lower()
    if _ONE_OF_SEVERAL.search(lower) or _FIRST_OF_SEVERAL.search(lower):
        return "question asks for one of several (a pair, a list or an example)"
    inside = re.search(r"\(([^()]*)\)", lower)
    if inside and re.search(r"\b(?:what|which|how|who|whom)\b", inside.group(1)):
        return "question word inside brackets"
    if _DOUBLED.search(lower):
        return "question word doubled ('of which which location')"
    if _FRONTED_PHRASE.search(lower):
        return "question word opens a phrase cut from its sentence ('In what, …')"
    if _SUBJECT_COMMA.search(question):
        return "comma between the subject and its verb (a part left out)"
    if _CUT_COORDINATION.search(question):
        return "question ends in an aside after a joining word (the rest of the clause left out)"
    return None


def imperative_answer(span: Any, counts: Counts) -> str | None:
    """Why the answer is the verb of an imperative ("Delete all extracted files", "Mark renamed items as
    deprecated"): one capitalised word opening its sentence, which the corpus also writes in lower case,
    followed by no verb of the sentence's own (a participle before a noun, "renamed items", is none).
    Asked "what", the verb reads as a name. None when it is not."""
    sent = span.sent
    if len(span) != 1 or span.start != sent.start or not span[0].is_title or span.end >= sent.end:
        return None
    after = span.doc[span.end]
    if after.pos_ in ("VERB", "AUX") and after.tag_ != "VBN":
        return None
    if counts.lower_df[span.text.lower()] == 0:
        return None
    return "answer is the verb of an imperative ('Delete all …'), not a name"


def guessable(span: Any, answer: str, counts: Counts) -> str | None:
    """Why the answer can be told without the text, or None."""
    if answer.lower().rstrip("s") in _CALENDAR or answer.lower() in _CALENDAR:
        return "answer is a weekday or a month (guessable)"
    doc = span.doc
    if span.start < 2:
        return None
    first = span[0].lower_
    follows = counts.followers(doc[span.start - 2].lower_, doc[span.start - 1].lower_)
    seen = sum(follows.values())
    if seen >= GUESS_MIN_SEEN and follows[first] >= GUESS_SHARE * seen and not any(ch.isdigit() for ch in first):
        return "answer is what usually follows its words in the corpus (guessable)"
    return None


def ambiguous(question: str, answer: str, chunk_id: str, counts: Counts) -> str | None:
    """Why the question may have another answer: another passage holds its two rarest words but not
    the answer; or None."""
    found = [w for w in content_words(question) if counts.word_df[w] > 0]  # not the question word
    words = sorted(found, key=lambda w: (counts.word_df[w], w))[:AMBIGUITY_WORDS]
    if not words:
        return None
    for other in sorted(set.intersection(*(counts.chunks_with.get(w, set()) for w in words)) - {chunk_id}):
        if not counts.contains(other, answer):
            return "another passage holds the question's words but not the answer (ambiguous)"
    return None
