"""The graph stage of indexing: extract the chunks that need it, merge batch by batch, embed the result.

Resumable per chunk: every batch of ``batch_chunks`` extractions is merged in its own transaction
together with the chunks' extraction marks, so a run killed mid-way keeps every merged batch and the
next run extracts only what was not merged. Aggregates are rebuilt from mentions, so the resumed graph
equals the graph of an uninterrupted run.

Extractors are handed windows of several batches at once: spaCy with ``n_process`` > 1 (and an LLM
extractor with concurrent calls) pays its start-up per call, and a window amortises it while merging
still happens in small batches.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from kgrag.core.records import ChunkRecord
from kgrag.documents import TokenCounter
from kgrag.graph.build.lifecycle import refresh_graph
from kgrag.graph.build.merge import MergeStats, merge_extractions
from kgrag.graph.build.summarize import Summarizer
from kgrag.graph.build.vectors import ensure_graph_vectors, mark_graph_vectors_stale
from kgrag.graph.types import ChunkExtraction, Extractor
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store

if TYPE_CHECKING:  # runtime import would be circular: kgrag.indexing imports this module
    from kgrag.core.progress import Progress
    from kgrag.indexing.report import IndexReport

STAGE = "graph"
WINDOW_BATCHES = 8


def _timed_batches(
    stream: Iterator[ChunkExtraction], size: int, report: IndexReport
) -> Iterator[list[ChunkExtraction]]:
    """Group the extractor's output into batches, charging the time spent waiting to ``extract``."""
    batch: list[ChunkExtraction] = []
    while True:
        started = time.perf_counter()
        item = next(stream, None)
        report.add_time("extract", time.perf_counter() - started)
        if item is not None:
            batch.append(item)
        if batch and (item is None or len(batch) >= size):
            yield batch
            batch = []
        if item is None:
            return


def unique_tokens(chunks: Sequence[ChunkRecord], counter: TokenCounter) -> int:
    """Tokens of the text these chunks cover, counting the overlap between neighbouring chunks once.

    This is the denominator of "prompt tokens per corpus token": summing chunk sizes would count the
    overlap twice and flatter the extraction cost by about the overlap share.
    """
    total = 0
    previous: ChunkRecord | None = None
    for chunk in sorted(chunks, key=lambda c: (c.doc_id, c.ord)):
        total += chunk.n_tokens
        if previous is not None and previous.doc_id == chunk.doc_id and previous.char_end > chunk.char_start:
            shared = min(previous.char_end, chunk.char_end) - chunk.char_start
            total -= counter.count(chunk.text[:shared])
        previous = chunk
    return total


def _account(report: IndexReport, stats: MergeStats) -> None:
    report.chunks_extracted += stats.chunks
    report.chunks_extraction_failed += stats.failed


def _extract_window(
    store: Store,
    extractor: Extractor,
    summarizer: Summarizer,
    chunk_ids: Sequence[str],
    batch_chunks: int,
    progress: Progress,
    report: IndexReport,
    counter: TokenCounter | None,
) -> None:
    chunks = store.chunks.get_many(chunk_ids)
    report.extracted_corpus_tokens += unique_tokens(chunks, counter or TokenCounter.for_encoding())
    for batch in _timed_batches(iter(extractor.extract(chunks)), batch_chunks, report):
        started = time.perf_counter()
        stats = merge_extractions(store, batch, extractor.name, summarizer, counter=counter)
        report.add_time("graph_merge", time.perf_counter() - started)
        _account(report, stats)
        progress.advance(STAGE, len(batch))


def build_graph(
    store: Store,
    extractor: Extractor,
    summarizer: Summarizer,
    progress: Progress,
    report: IndexReport,
    batch_chunks: int = 64,
    *,
    embedder: Embedder | None = None,
    counter: TokenCounter | None = None,
) -> None:
    """Bring the graph up to date with the chunks: clean up after deletions, extract and merge what is
    missing (or failed before), then embed new or changed entities and relations."""
    started = time.perf_counter()
    refreshed = refresh_graph(store, summarizer, counter)  # deletions since the last run, or a crash
    report.add_time("graph_merge", time.perf_counter() - started)
    pending = store.graph.chunks_needing_extraction(extractor.name)
    if pending or refreshed.changed:
        mark_graph_vectors_stale(store)
    if pending:
        progress.start(STAGE, len(pending))
        window = batch_chunks * WINDOW_BATCHES
        for start in range(0, len(pending), window):
            _extract_window(
                store, extractor, summarizer, pending[start : start + window], batch_chunks, progress, report, counter
            )
        progress.finish(STAGE)
    if embedder is not None:
        started = time.perf_counter()
        report.graph_texts_embedded += ensure_graph_vectors(store, embedder)
        report.add_time("graph_embed", time.perf_counter() - started)
    counts = store.graph.counts()
    report.entities, report.relations = counts["entities"], counts["relations"]
    if report.chunks_extraction_failed:
        errors = store.graph.extraction_errors(extractor.name, limit=1)
        first = f"; first: {errors[0][1]}" if errors else ""
        progress.note(
            f"{report.chunks_extraction_failed} chunks failed graph extraction and will be retried "
            f"on the next run{first}"
        )
