"""Known-item question candidates from one sentence, without an LLM.

A sentence of the corpus is the evidence; one of its spans (a named entity, or a noun phrase holding a
proper noun or a number) is masked and becomes the answer; the rest of the sentence is the question
(wording in :mod:`kgrag.evaluation.qgen.wording`). A sentence with side parts (a side clause, an
apposition) or long enough to be cut to the span's clause is asked whole only up to :data:`WHOLE_TOKENS`,
and gives no question beyond, unless ``trimmed`` asks for questions with those parts left out.

A candidate is kept only when it can be found and checked: the answer is distinctive (its phrase occurs
in few chunks, so it is not a word every passage has; the answer checks are in
:mod:`kgrag.evaluation.qgen.answers`), the question keeps a rare word that points at the
passage, the question does not contain the answer, and the sentence does not open with a pronoun whose
referent lies outside it. With ``strict`` (the default) the checks of
:mod:`kgrag.evaluation.qgen.defects` also reject lines that are not prose (tables of contents, index
lines, citations, contact blocks, headings run into text, captions), answers a question gives away (acronyms,
bracketed aliases, shared word stems) and questions cut from a subordinate clause, and those of
:mod:`kgrag.evaluation.qgen.structure` reject spans placed where no question reads (a fronted clause, a
subject naming nothing, one side of a coordination, a title run into the sentence, an unsure question
word).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kgrag.documents.words import content_words
from kgrag.evaluation.qgen.answers import NAMES, TOPICS, trusted_label, unfit_answer
from kgrag.evaluation.qgen.defects import answer_defect, cut_end, question_defect, run_on, sentence_defect
from kgrag.evaluation.qgen.fitness import (
    ambiguous,
    fragment_defect,
    guessable,
    imperative_answer,
    leaning_defect,
    wording_defect,
)
from kgrag.evaluation.qgen.labels import NameLabels
from kgrag.evaluation.qgen.lookups import Lookups
from kgrag.evaluation.qgen.markup import unmarked
from kgrag.evaluation.qgen.paragraphs import paragraphs
from kgrag.evaluation.qgen.quality import quality, signs
from kgrag.evaluation.qgen.referents import (
    cut_modifier,
    markup_residue,
    name_cut,
    open_comparison,
    pointed_span,
    pointer_opening,
    postmodified_span,
    second_question_word,
    sequence_adverb,
)
from kgrag.evaluation.qgen.scope import opens_with_name
from kgrag.evaluation.qgen.standalone import (
    clause_stands,
    computable,
    cut_sentence,
    label_number,
    misparsed,
    participle_opening,
    placement_defect,
    voice_defect,
)
from kgrag.evaluation.qgen.structure import (
    coordinated,
    fronted_clause,
    nearest_verb,
    outside_referent,
    second_statement,
    tacked_on,
    title_cut,
    unsure_word,
)
from kgrag.evaluation.qgen.wording import LABELS, ask_around, side_parts

_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z]{2,}(?![\w-])")
_LOWER_PAIR = re.compile(r"(?<![\w-])(?=([a-z]{2,} [a-z]{2,})(?![\w-]))")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9'’-]*")
_SKIP_LINE = ("#", "|", "```", "<", "!")
_OPENING_PRONOUNS = frozenset(
    "it its this these they their them he she his her we our us that those here there".split()
)
MIN_TOKENS, MAX_TOKENS, LONG_SENTENCE = 6, 50, 28
TRIMMED_REFUSED = "sentence too long to ask whole (evaluation.qgen_trimmed asks it trimmed)"
WHOLE_TOKENS = 32
"""A sentence with side parts, or one long enough to be cut to a clause, is asked whole up to this many
tokens; a longer one gives a question only with ``trimmed`` (:func:`make_cloze`,
``evaluation.qgen_trimmed``). Read blind, questions that keep
every content word of their sentence were usable more often than trimmed ones of the same length, up to
30 words (figures in ``docs/results/qgen-llm-free.md``)."""


@dataclass(frozen=True)
class Passage:
    """A chunk as question generation reads it."""

    chunk_id: str
    doc_id: str
    text: str
    start: int = 0
    """Where the chunk starts in its document (characters): to find the headings above it."""
    title: str = ""
    """The document's title, "" when it is only the file's name (:mod:`kgrag.evaluation.qgen.scope`)."""
    changelog: bool = False
    """Whether the document is a changelog or release notes
    (:func:`kgrag.documents.provenance.changelog_source`): no question is cut from it by default."""


@dataclass(frozen=True)
class Cloze:
    """One known-item question: the masked span is the answer, its sentence the evidence."""

    chunk_id: str
    doc_id: str
    sentence: str
    answer: str
    label: str
    question: str
    template: str
    topics: tuple[str, ...]
    score: float
    name_first: bool = False
    """Whether the question opens with a proper noun (kept capitalised when it follows other words)."""
    quality: float = 1.0
    """The mean of the positive signs of :mod:`kgrag.evaluation.qgen.quality` (1.0 for one built by hand)."""
    headings: tuple[str, ...] = ()
    """The headings the question names, outermost first (:mod:`kgrag.evaluation.qgen.scope`)."""
    whole: bool = True
    """Whether the question keeps every content word of its sentence outside the answer (no side part or
    other clause left out: :func:`kgrag.evaluation.qgen.wording.side_parts`, :func:`clause_of`)."""


def clean(text: str) -> str:
    """A line without list markers, markdown emphasis and backticks (:func:`kgrag.evaluation.qgen.markup.unmarked`:
    code keeps its characters, ``FORCE_COLOR``, ``__invoke()``, ``/pods/*/*/*.log``), spaces collapsed."""
    return " ".join(unmarked(_LIST_MARKER.sub("", text)).split())


def prose_lines(text: str) -> Iterator[str]:
    """The units of a chunk (:func:`kgrag.evaluation.qgen.paragraphs.paragraphs`: lines, soft-wrapped ones
    joined) that read as prose (not headings, table rows, code fences or markup)."""
    for raw in paragraphs(text):
        line = raw.strip()
        if line and not line.startswith(_SKIP_LINE) and len(line.split()) >= MIN_TOKENS:
            yield clean(line)


class Rarity:
    """Chunk frequencies of words and phrases over the whole corpus (markup removed, lower-cased), and the
    entity labels of its names (``labels``, filled as the corpus is parsed), and the word ``lookups``."""

    def __init__(self, passages: Sequence[Passage], lookups: Lookups | None = None) -> None:
        self.lookups = lookups
        self.texts = {p.chunk_id: " " + " ".join(clean(p.text).lower().split()) + " " for p in passages}
        self.n = max(1, len(passages))
        self.chunks_with: dict[str, set[str]] = defaultdict(set)
        for chunk_id, text in self.texts.items():
            for word in content_words(text):
                self.chunks_with[word].add(chunk_id)
        self.word_df: Counter[str] = Counter({w: len(ids) for w, ids in self.chunks_with.items()})
        units = ["\n".join(paragraphs(p.text)) for p in passages]  # a pair may span a soft line break
        self.lower_df: Counter[str] = Counter(w for text in units for w in set(_LOWER_WORD.findall(text)))
        self.lower_df.update(w for text in units for w in set(_LOWER_PAIR.findall(text)))
        """Chunk frequencies of words and word pairs written in lower case (to tell a common word capitalised
        mid-line: a heading or list item run into the text)."""
        self._phrase_df: dict[str, int] = {}
        self.max_df = max(3, round(0.02 * self.n))
        self._followers: dict[tuple[str, str], Counter[str]] | None = None
        self.labels = NameLabels()

    def followers(self, first: str, second: str) -> Counter[str]:
        """How often each word follows the two words ``first second`` in the corpus (punctuation left out)."""
        if self._followers is None:
            self._followers = defaultdict(Counter)
            for text in self.texts.values():
                tokens = _TOKEN.findall(text)
                for a, b, c in zip(tokens, tokens[1:], tokens[2:], strict=False):
                    self._followers[(a, b)][c] += 1
        return self._followers.get((first, second), Counter())

    @staticmethod
    def _pattern(phrase: str) -> re.Pattern[str]:
        return re.compile(r"(?<![a-z0-9])" + re.escape(" ".join(phrase.lower().split())) + r"(?![a-z0-9])")

    def contains(self, chunk_id: str, phrase: str) -> bool:
        return bool(self._pattern(phrase).search(self.texts.get(chunk_id, "")))

    def phrase_df(self, phrase: str) -> int:
        key = " ".join(phrase.lower().split())
        if key not in self._phrase_df:
            pattern, words = self._pattern(key), content_words(key)
            # only chunks holding every content word of the phrase can hold the phrase
            ids = set.intersection(*(self.chunks_with.get(w, set()) for w in words)) if words else set(self.texts)
            self._phrase_df[key] = sum(1 for i in ids if pattern.search(self.texts[i]))
        return self._phrase_df[key]

    def idf(self, df: int) -> float:
        return math.log((self.n + 1) / (df + 1)) + 1.0


def candidate_spans(sent: Any) -> list[tuple[Any, str]]:
    """Named entities of a sentence with an askable label, then noun phrases that hold a proper noun or
    a number and overlap no entity (their leading determiners left out), labelled ``THING``."""
    ents = [e for e in sent.ents if e.label_ in LABELS]
    taken = {i for e in ents for i in range(e.start, e.end)}
    found: list[tuple[Any, str]] = [(e, e.label_) for e in ents]
    for chunk in sent.noun_chunks:
        start = chunk.start
        while start < chunk.end and chunk.doc[start].pos_ in ("DET", "PRON"):
            start += 1
        span = chunk.doc[start : chunk.end]
        named = any(t.pos_ in ("PROPN", "NUM") for t in span)
        if len(span) and named and not taken & set(range(span.start, span.end)):
            found.append((span, "THING"))
    return found


def clause_of(span: Any, sent: Any) -> Any:
    """The clause of ``span`` in a long sentence (the subtree of its nearest verb, when that is a finite
    clause with a subject), else the sentence."""
    if len(sent) <= LONG_SENTENCE:
        return sent
    tok = nearest_verb(span)
    clause = sent.doc[tok.left_edge.i : tok.right_edge.i + 1]
    inside = clause.start <= span.start and span.end <= clause.end
    whole = inside and len(clause) >= MIN_TOKENS and clause.start >= sent.start
    return clause if whole and clause_stands(clause) else sent


def usable_sentence(sent: Any, rarity: Rarity, strict: bool = True) -> str | None:
    """Why a sentence cannot be evidence, or None when it can."""
    if not MIN_TOKENS <= len(sent) <= MAX_TOKENS:
        return "sentence too short or too long"
    if sent[0].lower_ in _OPENING_PRONOUNS:
        return "sentence opens with a pronoun"
    if unicodedata.category(sent.text[:1] or " ") == "So" or sent.text[1:2] == "\ufe0f":  # ℹ️ is a letter
        return "sentence opens with a symbol (an admonition's pictograph, a check or a cross)"
    return (
        (sentence_defect(sent) or cut_sentence(sent) or fragment_defect(sent, rarity) or title_cut(sent))
        if strict
        else None
    )


def _unfit(span: Any, clause: Any, answer: str, question: str, chunk_id: str, rarity: Rarity) -> str | None:
    """The checks of :mod:`kgrag.evaluation.qgen.fitness`, ``standalone`` and ``referents`` on a question
    that passed the others."""
    return (
        leaning_defect(question)
        or voice_defect(question)
        or sequence_adverb(question)
        or open_comparison(question)
        or markup_residue(question)
        or placement_defect(question)
        or computable(answer, question)
        or label_number(span)
        or misparsed(span)
        or postmodified_span(span)
        or second_question_word(clause, span)
        or name_cut(span)
        or pointed_span(span)
        or cut_modifier(span)
        or pointer_opening(span.sent)
        or participle_opening(clause, span)
        or wording_defect(span, question)
        or imperative_answer(span, rarity)
        or guessable(span, answer, rarity)
        or ambiguous(question, answer, chunk_id, rarity)
    )


def _placed(span: Any, clause: Any, label: str, template: str) -> str | None:
    """The checks of :mod:`kgrag.evaluation.qgen.structure` on where the span sits."""
    return (
        fronted_clause(clause, span, template)
        or outside_referent(clause, span)
        or coordinated(span)
        or second_statement(clause, span)
        or tacked_on(span)
        or unsure_word(span, label)
    )


def _asked(
    passage: Passage, span: Any, clause: Any, label: str, answer: str, rarity: Rarity, strict: bool, whole: bool
) -> tuple[str, str, list[str]] | str:
    """The question asked from ``clause`` (``whole``: with its side parts), its template and its context
    words ranked rarest first, or why it cannot be asked (a rejection reason)."""
    question, template, kept = ask_around(clause, span, label, whole)
    if content_words(answer) & content_words(question) or answer.lower() in question.lower():
        return "question contains the answer"
    if question.count("(") != question.count(")"):
        return "question has an unbalanced bracket"  # one opened or closed in the part left out
    if strict and (
        why := answer_defect(span, answer, question, label)
        or (question_defect(question) if template.startswith("in-place") else cut_end(question))
        or run_on(question)
    ):
        return why
    context = content_words(kept)
    if len(context) < 3:
        return "question too short"
    ranked = sorted(context, key=lambda w: (rarity.word_df[w], w))
    if rarity.word_df[ranked[0]] > rarity.max_df:
        return "question has no rare word"
    if strict and rarity.word_df[ranked[1]] > rarity.max_df:
        return "question has one rare word (ambiguous)"  # "One session can take how long?"
    if strict and (
        why := _unfit(span, clause, answer, question, passage.chunk_id, rarity)
        or _placed(span, clause, label, template)
    ):
        return why
    return question, template, ranked


def keeps_whole(sentence: str, answer: str, question: str) -> bool:
    """Whether ``question`` keeps every content word of ``sentence`` outside ``answer`` (``Cloze.whole``;
    the question without the headings :mod:`kgrag.evaluation.qgen.scope` names)."""
    return content_words(sentence) - content_words(answer) <= content_words(question)


def make_cloze(
    passage: Passage, sent: Any, span: Any, label: str, rarity: Rarity, strict: bool = True, trimmed: bool = False
) -> Cloze | str:
    """The question for ``span`` masked in ``sent``, or why there is none (a rejection reason). A sentence
    with side parts, or long enough to be cut to the span's clause, is asked whole (every part kept) up to
    :data:`WHOLE_TOKENS` tokens; with ``trimmed``, a longer one, or one whose whole wording fails a check,
    is asked from the span's clause with its side parts left out, and without it gives no question."""
    label = trusted_label(span, sent, label, rarity.labels, rarity.lookups)
    answer = span.text.strip(" ,.;:()\"'")
    if why := unfit_answer(span, label, answer, rarity):
        return why
    clause = clause_of(span, sent)
    asked: tuple[str, str, list[str]] | str = ""
    trimmed_wording = (clause.start, clause.end) != (sent.start, sent.end) or bool(side_parts(sent, span))
    if trimmed_wording and len(sent) <= WHOLE_TOKENS:
        asked = _asked(passage, span, sent, label, answer, rarity, strict, True)
    if isinstance(asked, str) and trimmed_wording and not trimmed:
        return asked or TRIMMED_REFUSED
    if isinstance(asked, str):
        asked = _asked(passage, span, clause, label, answer, rarity, strict, False)
    if isinstance(asked, str):
        return asked
    question, template, ranked = asked
    anchor = sum(rarity.idf(rarity.word_df[w]) for w in ranked[:3]) / min(3, len(ranked))
    named = [e for e in sent.ents if e.label_ in NAMES | TOPICS and e.start != span.start]
    acronyms = [t for t in sent if t.is_upper and len(t.text) >= 2 and t.is_alpha and not span.start <= t.i < span.end]
    topics = tuple(sorted({e.text.lower() for e in [*named, *acronyms] if e.text in question}))
    shown = quality(signs(sent, span, label, answer, question, passage.text, rarity))
    return Cloze(
        passage.chunk_id,
        passage.doc_id,
        sent.text.strip(),
        answer,
        label,
        question,
        template,
        topics,
        rarity.idf(rarity.phrase_df(answer)) + anchor,
        opens_with_name(question, sent),
        shown,
        whole=keeps_whole(sent.text, answer, question),
    )


def clozes(
    passage: Passage,
    docs: Sequence[Any],
    rarity: Rarity,
    rejected: Counter[str],
    strict: bool = True,
    trimmed: bool = False,
) -> list[Cloze]:
    """The best question (by quality, then distinctiveness) of each usable sentence of a passage's parsed
    prose lines (``trimmed``: :func:`make_cloze`)."""
    best: list[Cloze] = []
    for doc in docs:
        for sent in doc.sents:
            if (why := usable_sentence(sent, rarity, strict)) is not None:
                rejected[why] += 1
                continue
            spans = candidate_spans(sent)
            made = [make_cloze(passage, sent, span, label, rarity, strict, trimmed) for span, label in spans]
            kept = [m for m in made if isinstance(m, Cloze)]
            rejected.update(m for m in made if isinstance(m, str))
            if kept:
                best.append(max(kept, key=lambda c: (c.quality, c.score, c.answer)))
    return best
