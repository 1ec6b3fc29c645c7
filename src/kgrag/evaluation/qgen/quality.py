"""How good a known-item question that passed every check looks, from positive signs only.

The checks of :mod:`kgrag.evaluation.qgen.defects`, ``fitness`` and ``standalone`` reject defects one
shape at a time, and each new corpus shows shapes none of them knows. A user needs 25–50 good questions,
not every possible one, so the generator ranks what passed by the signs a good question shows and keeps
the best (:func:`kgrag.evaluation.qgen.known_item.pick_known_items`). Each sign is a value in [0, 1];
the quality is their mean:

- ``prose``: the passage the sentence comes from is running prose (the share of its characters in
  lines of whole sentences, soft-wrapped lines joined, not headings, list items, table rows or code) and
  the sentence's own line is not a list item;
- ``statement``: the sentence states a fact rather than instructing or pointing elsewhere: not an
  imperative, no "you" as subject, no "e.g.", "for example", "below", "above", "following", "here",
  "earlier", "later", "previous", "next", no quotation marks;
- ``named subject``: the main clause's subject is a name or holds one (a proper noun, an entity, or the
  masked answer itself), so the fact is about something the corpus names;
- ``specific answer``: the answer is a name written as one (capitalised words), a date, or a number with
  its unit; a lower-case noun phrase or a token mixing digits and letters scores lower;
- ``question word``: the question word fits the answer's shape ("how many" and "what number" only for a
  number, "who" and "which person" only for a name of two or more capitalised words, for people named
  by their role or handle, or for a person named by one word the label vouches for: a first name the corpus
  names in full or a list of first names holds, :func:`kgrag.evaluation.qgen.answers.trusted_label`);
- ``plain words``: the question holds no code-like token (dotted or underscored names, brackets, slashes,
  ``=`` or ``<``), no words glued together ("how manyGB"), no quotation mark and no stray ``..``, and has
  8–24 words;
- ``known topic``: the question names a thing (a proper noun outside the answer) that the corpus mentions
  in another passage too, so the question is about a subject of the corpus rather than a passing remark;
- ``rare words``: the question holds four or more words few passages have (fewer: a proportional
  share), so it says enough to have one answer.

Besides the signs, one shape is preferred (:func:`trusted_shape`): the answer is one word written as a
name and the question has ten words or more. A number, a lower-case phrase or a name of several words is
more often cut, guessable or asked with an ill-fitting question word, and a short question more often
names too little to have one answer. Read blind, the shape's lead held on most of the first corpora and
not on later ones (figures in ``docs/results/qgen-llm-free.md``), so it ranks after the two stronger
preferences of :func:`kgrag.evaluation.qgen.known_item.preference`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from kgrag.documents.words import content_words
from kgrag.evaluation.qgen.labels import PEOPLE, PERSON
from kgrag.evaluation.qgen.paragraphs import paragraphs

SIGNS = (
    "prose",
    "statement",
    "named subject",
    "specific answer",
    "question word",
    "plain words",
    "known topic",
    "rare words",
)
MIN_QUALITY = 0.75
"""Candidates below this mean of the signs are not kept, however few questions remain."""
MIN_WORDS, MAX_WORDS = 8, 24
RARE_WORDS = 4
TRUSTED_MIN_WORDS = 10
"""The fewest words (the question word included) a question of the trusted shape has."""
_LIST_LINE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SKIP = ("#", "|", "```", "<", "!", "    ", "\t")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")
_POINTING = re.compile(
    r"\b(?:e\.g\.|i\.e\.)|\b(?:for example|for instance|below|above|following|here|earlier|later|previous|"
    r"next|this page|this guide|this section)\b",
    re.I,
)
_QUOTES = re.compile(r"[\"“”‘’`]|(?<![A-Za-z])'|'(?![A-Za-z])")
_CODE = re.compile(r"\w\.\w|_|[(){}\[\]<>=/\\]|\.\.|--|::|\$|@|#|[a-z][A-Z]")
_COUNT_WORDS = ("how many", "what number", "how much")
_PERSON_WORDS = re.compile(r"^(?:who|whom)\b|\b(?:who|whom|which person)\b", re.I)
_YOU = frozenset({"you", "your", "we", "i"})


class Frequencies(Protocol):
    """Corpus statistics the signs read (:class:`kgrag.evaluation.qgen.cloze.Rarity`)."""

    word_df: Counter[str]
    max_df: int

    def phrase_df(self, phrase: str) -> int: ...


def prose_share(text: str) -> float:
    """The share of a passage's non-blank characters in units (lines, soft-wrapped ones joined:
    :func:`kgrag.evaluation.qgen.paragraphs.paragraphs`) that read as whole sentences of prose."""
    total = prose = 0
    for raw in paragraphs(text):
        line = raw.strip()
        if not line:
            continue
        total += len(line)
        listed = bool(_LIST_LINE.match(raw)) or raw.startswith(_SKIP) or line.startswith(_SKIP)
        if not listed and len(line.split()) >= 6 and _SENTENCE_END.search(line):
            prose += len(line)
    return prose / total if total else 0.0


def _line_of(text: str, sentence: str) -> str:
    """The unit of ``text`` (a line, soft-wrapped lines joined) that holds the first words of ``sentence``."""
    head = sentence.split()[:4]
    for raw in paragraphs(text):
        if head and " ".join(head) in " ".join(raw.replace("*", "").replace("_", "").split()):
            return raw
    return ""


def _prose(passage_text: str, sentence: str) -> float:
    listed = bool(_LIST_LINE.match(_line_of(passage_text, sentence)))
    return 0.0 if listed else prose_share(passage_text)


def _statement(sent: Any) -> float:
    root = sent.root
    if (root.tag_ == "VB" and root.i == sent.start) or _POINTING.search(sent.text) or _QUOTES.search(sent.text):
        return 0.0
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
    return 0.0 if any(s.lower_ in _YOU for s in subjects) else 1.0


def _named_subject(sent: Any, span: Any) -> float:
    subjects = [c for c in sent.root.children if c.dep_ in ("nsubj", "nsubjpass", "csubj")]
    for subject in subjects:
        words = list(subject.subtree)
        if any(t.pos_ == "PROPN" or t.ent_type_ or span.start <= t.i < span.end for t in words):
            return 1.0
    return 0.5 if subjects and not any(s.pos_ == "PRON" for s in subjects) else 0.0


def _specific(span: Any, label: str) -> float:
    tokens = [t for t in span if not t.is_punct]
    if any(any(ch.isdigit() for ch in t.text) and any(ch.isalpha() for ch in t.text) for t in tokens):
        return 0.5 if label in ("DATE", "TIME", "QUANTITY") else 0.0  # "21YunBox" asked as a number
    if label in ("DATE", "TIME", "PERCENT", "MONEY", "QUANTITY"):
        return 1.0
    if label == "CARDINAL":
        following = span.doc[span.end] if span.end < len(span.doc) else None
        return 1.0 if following is not None and following.pos_ == "NOUN" else 0.5
    named = all(t.is_title or t.is_upper or t.like_num for t in tokens)
    return 1.0 if named and tokens else 0.5 if any(t.pos_ == "PROPN" for t in tokens) else 0.25


def _question_word(question: str, answer: str, label: str) -> float:
    lower = question.lower()
    numeric = label in ("CARDINAL", "QUANTITY", "MONEY", "PERCENT") or any(ch.isdigit() for ch in answer)
    mixed = any(re.search(r"\d", w) and re.search(r"[A-Za-z]{2}", w) for w in answer.split())
    if any(w in lower for w in _COUNT_WORDS) and (mixed or not numeric):
        return 0.0
    if _PERSON_WORDS.search(question) and label not in (PEOPLE, PERSON):
        words = answer.split()
        return 1.0 if len(words) >= 2 and all(w[:1].isupper() for w in words) else 0.0
    return 1.0


def _plain(question: str) -> float:
    body = question.rstrip("?")
    if _CODE.search(body) or _QUOTES.search(body):
        return 0.0
    n = len(body.split())
    if MIN_WORDS <= n <= MAX_WORDS:
        return 1.0
    return 0.5 if MIN_WORDS - 2 <= n <= MAX_WORDS + 6 else 0.0


def _known_topic(sent: Any, span: Any, question: str, counts: Frequencies) -> float:
    names = {t.text for t in sent if t.pos_ == "PROPN" and not span.start <= t.i < span.end and t.text in question}
    if not names:
        return 0.0
    return 1.0 if any(counts.phrase_df(name) >= 2 for name in names) else 0.5


def _rare_words(question: str, counts: Frequencies) -> float:
    rare = [w for w in content_words(question) if 0 < counts.word_df[w] <= counts.max_df]
    return min(1.0, len(rare) / RARE_WORDS)


def signs(
    sent: Any, span: Any, label: str, answer: str, question: str, passage_text: str, counts: Frequencies
) -> dict[str, float]:
    """Each sign of the module docstring for one candidate (``sent`` and ``span``: spaCy objects)."""
    values = (
        _prose(passage_text, sent.text.strip()),
        _statement(sent),
        _named_subject(sent, span),
        _specific(span, label),
        _question_word(question, answer, label),
        _plain(question),
        _known_topic(sent, span, question, counts),
        _rare_words(question, counts),
    )
    return dict(zip(SIGNS, values, strict=True))


def trusted_shape(answer: str, question: str) -> bool:
    """Whether a candidate has the shape asked first (module docstring): the answer is a single word
    that opens with a capital letter and holds no digit (a tool, a product, a term the corpus names:
    "Tokio", "TCP", "Sparkle"), and the question has at least :data:`TRUSTED_MIN_WORDS` words."""
    words = answer.split()
    if len(words) != 1 or not words[0][:1].isupper() or any(ch.isdigit() for ch in words[0]):
        return False
    return len(question.split()) >= TRUSTED_MIN_WORDS


def quality(values: dict[str, float] | Sequence[float]) -> float:
    """The mean of the signs."""
    numbers = list(values.values()) if isinstance(values, dict) else list(values)
    return sum(numbers) / len(numbers) if numbers else 0.0
