"""Citations for answers whose model did not cite: each answer sentence aligned to the passage that backs it.

Small local models often answer correctly but write no ``[c:ID]`` marker, or only invented ones (which
:func:`~kgrag.generation.answer.extract_citations` removes). Rather than leave such an answer uncited,
every sentence without a marker is compared with the context passages the model was given:

* **embedding**: the cosine between the sentence and the passage's best-matching sentence (the workspace's
  embedder, one call for the answer's and the passages' sentences together);
* **lexical**: the share of the sentence's content words (lightly stemmed, weighted by how few of the
  context passages hold them) that two consecutive sentences of the passage hold, so a name or a figure
  the embedder blurs still counts.

Their weighted sum is the sentence's support by that passage. The best passage at or above the threshold
(``generation.attribution_threshold``, calibrated on the sample corpus by
``bench/bench_citation_attribution.py``), and any other within :data:`MARGIN` of it, are *attributed*; a
sentence no passage reaches is *unsupported*;
a sentence that carries the model's own marker stays *cited*, unless the passages it cites do not support
it: a small model asked what the context cannot answer writes the question back as a statement with any
marker ("The on-call rotation for the team in Zurich is [c:…]"). Such a sentence is checked lexically
first (no cost: a sentence sharing a fair part of its content words with a cited passage stays cited),
and only when that check fails it is scored as attribution scores; under the threshold it is *miscited*.
Attribution never changes the answer text: it adds :class:`~kgrag.generation.types.SentenceSupport` records
beside it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgrag.documents.sentences import sentence_texts, split_sentences
from kgrag.documents.words import ordered_content_words
from kgrag.generation.extractive import stem
from kgrag.generation.types import SentenceSupport, SupportStatus
from kgrag.models.embeddings import Embedder

MARKER = re.compile(r"\[c:([^\[\]\s]+)\]")
_LEADING_MARKERS = re.compile(r"(?:\s*\[c:[^\[\]\s]+\])+")  # used with match(): anchored at pos
_SPACE_BEFORE_MARK = re.compile(r"\s+([.,;:!?])")
# Words an answer uses to frame its claim ("Based on the context provided, ...") that no passage holds.
FRAMING_WORDS = frozenset("based context provided according passage passages text document documents".split())


@dataclass(frozen=True)
class SupportPassage:
    """A context passage an answer sentence may be attributed to: its chunk id and text."""

    id: str
    text: str


@dataclass(frozen=True)
class _Sentence:
    start: int
    end: int
    claim: str  # the sentence without its markers
    cited: tuple[str, ...]


def answer_sentences(text: str) -> list[_Sentence]:
    """The sentences of an answer, each with the passage ids its ``[c:ID]`` markers name. Markers a model
    put after the full stop (``... the Apps team. [c:c1]``) belong to the sentence before them."""
    pieces: list[list[int]] = []
    for start, end in split_sentences(text):
        lead = _LEADING_MARKERS.match(text, start, end)
        if lead is not None and pieces:
            pieces[-1][1] = lead.end()
            start = lead.end()
        if text[start:end].strip():
            pieces.append([start, end])
    out = []
    for start, end in pieces:
        piece = text[start:end]
        claim = _SPACE_BEFORE_MARK.sub(r"\1", " ".join(MARKER.sub(" ", piece).split()))
        if claim:
            cited = tuple(dict.fromkeys(MARKER.findall(piece)))
            out.append(_Sentence(start, end, claim, cited))
    return out


def content_stems(text: str) -> set[str]:
    """The content words of ``text``, lightly stemmed, without the words answers frame claims with."""
    return {stem(w) for w in ordered_content_words(text) if w not in FRAMING_WORDS}


def _windows(text: str) -> list[set[str]]:
    """The content stems of each pair of consecutive sentences of a passage (a claim often joins two)."""
    sentences = [content_stems(t) for t in sentence_texts(text)] or [content_stems(text)]
    return [a | b for a, b in zip(sentences, [*sentences[1:], set()], strict=True)]


def lexical_support(claims: Sequence[str], passages: Sequence[SupportPassage]) -> np.ndarray:
    """``[claim, passage]``: the share of the claim's content stems that two consecutive sentences of the
    passage hold, each stem weighted by 1 + its rarity among the context passages (a name only one passage
    holds says more than a word all of them hold, which still counts); 0 for a claim without content words."""
    held = [content_stems(p.text) for p in passages]
    windows = [_windows(p.text) for p in passages]
    out = np.zeros((len(claims), len(passages)), dtype=np.float32)
    for row, claim in enumerate(claims):
        words = content_stems(claim)
        if not words:
            continue
        weight = {w: 1 + math.log((len(passages) + 1) / (sum(w in h for h in held) + 0.5)) for w in words}
        total = sum(weight.values())
        for col, spans in enumerate(windows):
            out[row, col] = max(sum(weight[w] for w in words & span) for span in spans) / total
    return out


def embedding_support(claims: Sequence[str], passages: Sequence[SupportPassage], embedder: Embedder) -> np.ndarray:
    """``[claim, passage]``: the cosine between the claim and the passage's closest sentence."""
    units = [sentence_texts(p.text) or [p.text] for p in passages]
    flat = [s for group in units for s in group]
    vectors = np.asarray(embedder.embed([*claims, *flat]), dtype=np.float32)
    sims = vectors[: len(claims)] @ vectors[len(claims) :].T
    out = np.zeros((len(claims), len(passages)), dtype=np.float32)
    at = 0
    for col, group in enumerate(units):
        out[:, col] = sims[:, at : at + len(group)].max(axis=1)
        at += len(group)
    return np.clip(out, 0.0, 1.0)


def support_scores(
    claims: Sequence[str], passages: Sequence[SupportPassage], embedder: Embedder | None, weight: float
) -> np.ndarray:
    """``[claim, passage]`` support: ``weight`` × embedding + (1 − ``weight``) × lexical; without an
    embedder (or with ``weight`` 0) lexical alone."""
    lexical = lexical_support(claims, passages)
    if embedder is None or weight <= 0 or not claims or not passages:
        return lexical
    return weight * embedding_support(claims, passages, embedder) + (1 - weight) * lexical


LEXICAL_OK = 0.15
"""A cited sentence whose content words a cited passage holds at least this share of (weighted as in
:func:`lexical_support`) stays *cited* without being embedded; below it, the full support score decides."""

MARGIN = 0.05
"""Passages within this much of the best one (and over the threshold) are attributed too: a sentence that
joins two facts is backed by both of their passages."""


@dataclass(frozen=True)
class Attributor:
    """Aligns answer sentences to passages: ``threshold`` on the combined score, ``weight`` of the
    embedding part, ``margin`` below the best score within which other passages are attributed too.
    ``embedder`` None scores lexically (weight ignored)."""

    embedder: Embedder | None
    threshold: float
    weight: float = 0.5
    margin: float = MARGIN

    def scores(self, claims: Sequence[str], passages: Sequence[SupportPassage]) -> np.ndarray:
        return support_scores(claims, passages, self.embedder, self.weight)

    def pick(self, row: np.ndarray) -> list[int]:
        """The passages (columns of ``row``) attributed to a sentence: best first; none under the threshold."""
        best = float(row.max()) if row.size else 0.0
        if best < self.threshold:
            return []
        chosen = [int(i) for i in np.argsort(-row, kind="stable") if row[i] >= max(self.threshold, best - self.margin)]
        return chosen

    def _checked(self, sentence: _Sentence, passages: Sequence[SupportPassage]) -> SentenceSupport:
        """A sentence the model cited: *cited*, or *miscited* when none of the passages it cites (among
        ``passages``; a graph item it cites is not checked) supports it."""
        cited = [p for p in passages if p.id in sentence.cited]
        record = SentenceSupport(sentence.claim, sentence.start, sentence.end, "cited", list(sentence.cited))
        if not cited or float(lexical_support([sentence.claim], cited).max()) >= LEXICAL_OK:
            return record
        score = round(float(self.scores([sentence.claim], cited).max()), 4)
        status: SupportStatus = "miscited" if score < self.threshold else "cited"
        return SentenceSupport(sentence.claim, sentence.start, sentence.end, status, list(sentence.cited), score)

    def support(self, text: str, passages: Sequence[SupportPassage]) -> list[SentenceSupport]:
        """One record per sentence of ``text``: *cited* where the model put a marker (*miscited* when the
        passages it cites do not support it), else *attributed* to the passages :meth:`pick` chooses, else
        *unsupported*."""
        sentences = answer_sentences(text)
        open_rows = [i for i, s in enumerate(sentences) if not s.cited]
        scores = self.scores([sentences[i].claim for i in open_rows], passages) if open_rows and passages else None
        row_of = {index: row for row, index in enumerate(open_rows)}
        out = []
        for index, sentence in enumerate(sentences):
            if sentence.cited:
                out.append(self._checked(sentence, passages))
                continue
            row = np.zeros(0) if scores is None else scores[row_of[index]]
            score = round(float(row.max()), 4) if row.size else 0.0
            ids = [passages[i].id for i in self.pick(row)]
            status: SupportStatus = "attributed" if ids else "unsupported"
            out.append(SentenceSupport(sentence.claim, sentence.start, sentence.end, status, ids, score))
        return out
