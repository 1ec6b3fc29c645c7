"""Building the graph from chunks: extract the chunks that need it, merge batch by batch, embed the result.

Resumable per chunk: every batch of ``batch_chunks`` extractions is merged in its own transaction
together with the chunks' extraction marks, so a run killed mid-way keeps every merged batch and the
next run extracts only what was not merged. Batches close only at unit ends and windows only between
documents, so a resumed run sends exactly the calls an uninterrupted run would have sent for the rest.

Aggregates (names, types, descriptions and their summaries) are rebuilt from mentions once, at the end
of the build, not after every batch: a summary is then made once from the final descriptions, instead
of again after each batch that touched a hub entity (which cost LLM calls whose number depended on
where batches happened to end, so a resumed run paid for different summaries than a clean one). Until
then touched entities stay flagged stale, and a crash leaves the flags for the next run's rebuild.

Extractors are handed windows of several batches at once: spaCy with ``n_process`` > 1 (and an LLM
extractor with concurrent calls) pays its start-up per call, and a window amortises it while merging
still happens in small batches.

The builder knows nothing of the indexing run that calls it: it returns :class:`GraphBuildStats` and the
``extract`` stage copies them into its report, so the graph layer never imports the indexing layer.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from kgrag.core.progress import Progress
from kgrag.core.records import ChunkRecord
from kgrag.core.stages import EXTRACT, progress_label
from kgrag.documents import TokenCounter
from kgrag.graph.build.lifecycle import refresh_graph
from kgrag.graph.build.merge import MergeStats, merge_extractions
from kgrag.graph.build.summarize import Summarizer
from kgrag.graph.build.vectors import ensure_graph_vectors, mark_graph_vectors_stale
from kgrag.graph.types import ChunkExtraction, Extractor
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store

WINDOW_BATCHES = 8
# parts of a build, as timed in GraphBuildStats.seconds (the extract stage reports them as extract.<part>)
PART_REFRESH = "refresh"
PART_MODEL = "model"
PART_MERGE = "merge"
PART_EMBED = "embed"


@dataclass
class GraphBuildStats:
    """What one :func:`build_graph` call did: chunks extracted/failed, graph size after it, graph texts
    embedded, corpus tokens the extractor read (overlap counted once) and seconds per part."""

    chunks_extracted: int = 0
    chunks_extraction_failed: int = 0
    chunks_failed_again: int = 0  # of those, chunks whose extraction had failed on the run before too
    extracted_corpus_tokens: int = 0
    graph_texts_embedded: int = 0
    aggregates_pending: int = 0  # entities/relations whose summary fell back; rebuilt on the next run
    entities: int = 0
    relations: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def add_time(self, part: str, seconds: float) -> None:
        self.seconds[part] = self.seconds.get(part, 0.0) + seconds


def _timed_batches(
    stream: Iterator[ChunkExtraction], size: int, stats: GraphBuildStats
) -> Iterator[list[ChunkExtraction]]:
    """Group the extractor's output into batches, charging the time spent waiting to the ``model`` part.

    A batch closes only after a chunk that ends its extraction unit (``unit_end``), so no unit is ever
    split between two committed batches."""
    batch: list[ChunkExtraction] = []
    while True:
        started = time.perf_counter()
        item = next(stream, None)
        stats.add_time(PART_MODEL, time.perf_counter() - started)
        if item is not None:
            batch.append(item)
        if batch and (item is None or (len(batch) >= size and batch[-1].unit_end)):
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


def document_windows(store: Store, chunk_ids: Sequence[str], size: int) -> Iterator[list[str]]:
    """``chunk_ids`` cut into windows of about ``size`` chunks, only ever between documents.

    An extractor groups neighbouring chunks of a document (LLM units); a window edge inside a document
    would cut a group at a place that depends on how much was already done, so a resumed run would form
    different groups (other calls, another graph) than an uninterrupted one. A document larger than
    ``size`` gets a window of its own.
    """
    window: list[str] = []
    previous_doc: str | None = None
    for start in range(0, len(chunk_ids), size):
        for chunk in store.chunks.get_many(chunk_ids[start : start + size]):
            if window and chunk.doc_id != previous_doc and len(window) >= size:
                yield window
                window = []
            window.append(chunk.id)
            previous_doc = chunk.doc_id
    if window:
        yield window


def _extract_window(
    store: Store,
    extractor: Extractor,
    summarizer: Summarizer,
    chunk_ids: Sequence[str],
    batch_chunks: int,
    progress: Progress,
    stats: GraphBuildStats,
    counter: TokenCounter | None,
    label: str,
) -> None:
    chunks = store.chunks.get_many(chunk_ids)
    stats.extracted_corpus_tokens += unique_tokens(chunks, counter or TokenCounter.for_encoding())
    for batch in _timed_batches(iter(extractor.extract(chunks)), batch_chunks, stats):
        started = time.perf_counter()
        merged: MergeStats = merge_extractions(store, batch, extractor.name, summarizer, counter=counter, refresh=False)
        stats.add_time(PART_MERGE, time.perf_counter() - started)
        stats.chunks_extracted += merged.chunks
        stats.chunks_extraction_failed += merged.failed
        progress.advance(label, len(batch))


def build_graph(
    store: Store,
    extractor: Extractor,
    summarizer: Summarizer,
    progress: Progress,
    batch_chunks: int = 64,
    *,
    embedder: Embedder | None = None,
    counter: TokenCounter | None = None,
    label: str = progress_label(EXTRACT),
) -> GraphBuildStats:
    """Bring the graph up to date with the chunks: clean up after deletions, extract and merge what is
    missing (or failed before), then (given an ``embedder``) embed new or changed entities and relations.
    ``label`` names the progress bar: the name of the stage running the build."""
    stats = GraphBuildStats()
    pending = store.graph.chunks_needing_extraction(extractor.name)
    failed_before = {c for c, _ in store.graph.extraction_errors(extractor.name, limit=max(len(pending), 1))}
    started = time.perf_counter()
    deleted = store.graph.delete_orphans()  # deletions since the last run; aggregates are rebuilt at the end
    stats.add_time(PART_REFRESH, time.perf_counter() - started)
    if pending or any(deleted):
        mark_graph_vectors_stale(store)
    if pending:
        progress.start(label, len(pending))
        for part in document_windows(store, pending, batch_chunks * WINDOW_BATCHES):
            _extract_window(store, extractor, summarizer, part, batch_chunks, progress, stats, counter, label)
        progress.finish(label)
    started = time.perf_counter()
    if refresh_graph(store, summarizer, counter).changed:
        mark_graph_vectors_stale(store)
    stats.add_time(PART_REFRESH, time.perf_counter() - started)
    if embedder is not None:
        started = time.perf_counter()
        stats.graph_texts_embedded += ensure_graph_vectors(store, embedder, progress=progress)
        stats.add_time(PART_EMBED, time.perf_counter() - started)
    stats.aggregates_pending = len(store.graph.stale_entity_ids()) + len(store.graph.stale_relation_ids())
    if stats.aggregates_pending:
        progress.note(
            f"{stats.aggregates_pending} entity/relation descriptions got a fallback summary (the LLM failed "
            "or was cut off) and will be summarised again on the next run"
        )
    counts = store.graph.counts()
    stats.entities, stats.relations = counts["entities"], counts["relations"]
    if stats.chunks_extraction_failed:
        progress.note(_failure_note(store, extractor.name, stats, failed_before))
    return stats


COPIED_EXAMPLE = "copies the example reply"  # how the LLM layer refuses a reply that copies the worked example


def _failure_note(store: Store, extractor: str, stats: GraphBuildStats, failed_before: set[str]) -> str:
    """The chunks that failed, the first reason, and how many had failed on the run before too: the same
    request to the same model at temperature 0 gets the same reply, so re-running alone seldom helps them."""
    errors = store.graph.extraction_errors(extractor, limit=max(stats.chunks_extraction_failed, 1))
    stats.chunks_failed_again = sum(chunk in failed_before for chunk, _ in errors)
    first = f"; first: {errors[0][1]}" if errors else ""
    note = f"{stats.chunks_extraction_failed} chunks failed graph extraction and will be retried on the next run{first}"
    if stats.chunks_failed_again:
        note += (
            f". {stats.chunks_failed_again} of them had failed on the previous run too: the same requests to the "
            "same model get the same replies, so re-running alone may not finish them; `kgrag prompts tune`, "
            "another model or a smaller graph.extractors.llm.unit_tokens can"
        )
        if any(COPIED_EXAMPLE in error for _, error in errors):
            note += (
                '; this model copies the prompts\' worked example: llm.prompt_examples = "auto" lets kgrag try it '
                'without examples, "never" leaves them out'
            )
    return note
