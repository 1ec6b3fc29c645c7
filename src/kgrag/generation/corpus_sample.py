"""A sample of the workspace's own sentences, for calibrating the LLM-free answer's "not found" threshold.

One sentence (the middle one that states something) from every n-th stored chunk, up to
:data:`kgrag.generation.abstain.SAMPLE_SIZE` sentences, read once per store generation (a query resource,
so a query never re-reads the corpus and an indexing run refreshes it). See
:mod:`kgrag.generation.abstain`.
"""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.documents import split_sentences
from kgrag.generation.abstain import SAMPLE_SIZE, calibrated_threshold
from kgrag.generation.extractive import null_coverage
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


def calibrated_config(config: KgragConfig, question: str, ctx: QueryContext) -> KgragConfig:
    """``config`` with the not-found threshold calibrated for ``question`` on this corpus
    (:func:`kgrag.generation.abstain.calibrated_threshold`); unchanged when calibration is off."""
    generation = config.generation
    if not generation.extractive_calibrate or generation.extractive_min_coverage <= 0:
        return config
    sample: tuple[str, ...] = ctx.get(CORPUS_SAMPLE)
    threshold = calibrated_threshold(null_coverage(question, sample), generation.extractive_min_coverage)
    tuned = generation.model_copy(update={"extractive_min_coverage": threshold})
    return config.model_copy(update={"generation": tuned})
