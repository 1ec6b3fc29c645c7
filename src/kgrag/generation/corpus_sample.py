"""A sample of the workspace's own sentences, for calibrating the LLM-free answer's "not found" threshold.

One sentence (the middle one that states something) from every n-th stored chunk, up to
:data:`kgrag.generation.abstain.SAMPLE_SIZE` sentences, read and reduced to their content-word stems once
per store generation (query resources, so a query never re-reads or re-stems the corpus and an indexing
run refreshes them); each query then only matches its own terms against them. See
:mod:`kgrag.generation.abstain`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgrag.config import KgragConfig
from kgrag.documents import split_sentences
from kgrag.generation.abstain import NULL_QUANTILE, SAMPLE_SIZE, calibrated_threshold
from kgrag.generation.answer_sentences import sentence_stems
from kgrag.generation.extractive import question_terms, term_weights
from kgrag.generation.sentence_kinds import states_something
from kgrag.retrieval.query_context import QueryContext, QueryResource

MIN_CHARS = 20


def _sample(ctx: QueryContext) -> tuple[str, ...]:
    total = ctx.store.chunks.count()
    if total == 0:
        return ()
    step = max(1, total // SAMPLE_SIZE)
    sentences: list[str] = []
    for n, chunk in enumerate(ctx.store.chunks.iter_all()):
        if n % step or len(sentences) >= SAMPLE_SIZE:
            continue
        spans = [(s, e) for s, e in split_sentences(chunk.text) if e - s >= MIN_CHARS]
        texts = [" ".join(chunk.text[s:e].split()) for s, e in spans]
        texts = [t for t in texts if states_something(t)]
        if texts:
            sentences.append(texts[len(texts) // 2])
    return tuple(sentences)


CORPUS_SAMPLE: QueryResource[tuple[str, ...]] = QueryResource("corpus_sentence_sample", _sample, per_generation=True)


def _sample_stems(ctx: QueryContext) -> tuple[frozenset[str], ...]:
    return tuple(sentence_stems(sentence) for sentence in ctx.get(CORPUS_SAMPLE))


SAMPLE_STEMS: QueryResource[tuple[frozenset[str], ...]] = QueryResource(
    "corpus_sentence_sample_stems", _sample_stems, per_generation=True
)


def null_coverage(question: str, sample: Sequence[frozenset[str]]) -> float | None:
    """How well sentences of the corpus sample (unrelated to the question but for chance; ``sample``: their
    content-word stems, :func:`~kgrag.generation.extractive.sentence_stems`) cover ``question``: the
    ``NULL_QUANTILE`` quantile of their coverage, weighted as the extractive answer weighs a question's
    words; None without a sample."""
    if not sample:
        return None
    terms = question_terms(question)
    if not terms:
        return None
    held = np.array([[1.0 if t in w else 0.0 for t in terms] for w in sample]).reshape(len(sample), len(terms))
    weights = term_weights(terms, held)
    total = weights.sum()
    return float(np.quantile(held @ (weights / total), NULL_QUANTILE)) if total > 0 else None


def calibrated_config(config: KgragConfig, question: str, ctx: QueryContext) -> KgragConfig:
    """``config`` with the not-found threshold calibrated for ``question`` on this corpus
    (:func:`kgrag.generation.abstain.calibrated_threshold`); unchanged when calibration is off."""
    generation = config.generation
    if not generation.extractive_calibrate or generation.extractive_min_coverage <= 0:
        return config
    sample = ctx.get(SAMPLE_STEMS)
    threshold = calibrated_threshold(null_coverage(question, sample), generation.extractive_min_coverage)
    tuned = generation.model_copy(update={"extractive_min_coverage": threshold})
    return config.model_copy(update={"generation": tuned})
