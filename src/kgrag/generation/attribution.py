"""Citations for answers whose model did not cite: each answer sentence aligned to the passage that backs it.

Small local models often answer correctly but write no ``[c:ID]`` marker, or only invented ones (which
:func:`~kgrag.generation.answer.extract_citations` removes). Rather than leave such an answer uncited,
every sentence without a marker is compared with the context passages the model was given:

* **embedding**: the cosine between the sentence and the passage's best-matching sentence (the workspace's
  embedder, one call for the answer's and the passages' sentences together);
* **lexical**: the share of the sentence's content words (lightly stemmed) that the passage holds, so a
  name or a figure the embedder blurs still counts.

Their weighted sum is the sentence's support by that passage. The best passage at or above the threshold
(``generation.attribution_threshold``, calibrated on the sample corpus by
``bench/bench_citation_attribution.py``) is *attributed*; a sentence no passage reaches is *unsupported*;
a sentence that carries the model's own marker stays *cited*. Attribution never changes the answer text:
it adds :class:`~kgrag.generation.types.SentenceSupport` records beside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgrag.documents.sentences import sentence_texts, split_sentences
from kgrag.documents.words import ordered_content_words
from kgrag.generation.extractive import stem
from kgrag.generation.types import SentenceSupport
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


def _stems(text: str) -> set[str]:
    return {stem(w) for w in ordered_content_words(text) if w not in FRAMING_WORDS}


def lexical_support(claims: Sequence[str], passages: Sequence[SupportPassage]) -> np.ndarray:
    """``[claim, passage]``: the share of the claim's content stems the passage holds (0 for a claim
    without content words)."""
    held = [_stems(p.text) for p in passages]
    out = np.zeros((len(claims), len(passages)), dtype=np.float32)
    for row, claim in enumerate(claims):
        words = _stems(claim)
        if words:
            out[row] = [len(words & h) / len(words) for h in held]
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


@dataclass(frozen=True)
class Attributor:
    """Aligns answer sentences to passages: ``threshold`` on the combined score, ``weight`` of the
    embedding part. ``embedder`` None scores lexically (weight ignored)."""

    embedder: Embedder | None
    threshold: float
    weight: float = 0.5

    def scores(self, claims: Sequence[str], passages: Sequence[SupportPassage]) -> np.ndarray:
        return support_scores(claims, passages, self.embedder, self.weight)

    def support(self, text: str, passages: Sequence[SupportPassage]) -> list[SentenceSupport]:
        """One record per sentence of ``text``: *cited* where the model put a marker, else *attributed*
        to the best passage at or above the threshold, else *unsupported*."""
        sentences = answer_sentences(text)
        open_rows = [i for i, s in enumerate(sentences) if not s.cited]
        scores = self.scores([sentences[i].claim for i in open_rows], passages) if open_rows and passages else None
        row_of = {index: row for row, index in enumerate(open_rows)}
        out = []
        for index, sentence in enumerate(sentences):
            if sentence.cited:
                out.append(SentenceSupport(sentence.claim, sentence.start, sentence.end, "cited", list(sentence.cited)))
                continue
            row = None if scores is None else scores[row_of[index]]
            best = -1 if row is None else int(np.argmax(row))
            score = 0.0 if row is None else round(float(row[best]), 4)
            if row is not None and score >= self.threshold:
                status, ids = "attributed", [passages[best].id]
            else:
                status, ids = "unsupported", []
            out.append(SentenceSupport(sentence.claim, sentence.start, sentence.end, status, ids, score))
        return out
