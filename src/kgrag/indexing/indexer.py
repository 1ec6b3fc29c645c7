"""The indexing run: discover → ingest (chunk + FTS) → embed → mark indexed, with a report.

Each stage only does what is missing, so re-running on unchanged files does no work and a killed run
resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from kgrag.config import KgragConfig
from kgrag.core.errors import DocumentError, KgragError
from kgrag.core.progress import Progress
from kgrag.core.records import DocumentStatus
from kgrag.documents import TokenCounter, discover
from kgrag.graph.build.builder import build_graph
from kgrag.graph.build.lifecycle import refresh_graph
from kgrag.graph.build.summarize import ExtractiveSummarizer, Summarizer
from kgrag.graph.build.vectors import ensure_graph_vectors, mark_graph_vectors_stale
from kgrag.graph.types import Extractor
from kgrag.indexing.embed import embed_missing_chunks
from kgrag.indexing.ingest import ChunkPlan, Ingestor, file_documents
from kgrag.indexing.report import IndexReport
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store

INGEST_STAGE = "read+chunk"


def run_index(
    paths: Sequence[Path],
    store: Store,
    config: KgragConfig,
    plan: ChunkPlan,
    embedder: Embedder,
    progress: Progress,
    extractor: Extractor | None = None,
    summarizer: Summarizer | None = None,
) -> IndexReport:
    """Index ``paths`` (files or directories) into ``store``; with an ``extractor``, build the graph too."""
    report = IndexReport()
    started = time.perf_counter()
    try:
        files = discover(paths, config.documents.include, config.documents.exclude)
    except DocumentError as exc:  # a path that does not exist is a typo, not a file to skip
        raise KgragError(f"{exc}; nothing was indexed") from exc
    report.add_time("discover", time.perf_counter() - started)
    report.files_seen = len(files)
    ingestor = Ingestor(store, config.documents, plan)
    progress.start(INGEST_STAGE, len(files))
    for path in files:
        ingestor.process(path, report)
        progress.advance(INGEST_STAGE)
    progress.finish(INGEST_STAGE)
    embed_missing_chunks(store, embedder, config.embedding.batch_size, progress, report)
    summarizer = summarizer or ExtractiveSummarizer(config.graph.max_description_tokens, plan.counter)
    _graph_stage(store, embedder, progress, report, extractor, summarizer, plan.counter)
    finalize_statuses(store, extractor.name if extractor is not None else None)
    for problem in report.problems:
        progress.note(f"skipped {problem.path}: {problem.reason}")
    return report


# -- graph stage ---------------------------------------------------------------------------------
def _graph_stage(
    store: Store,
    embedder: Embedder,
    progress: Progress,
    report: IndexReport,
    extractor: Extractor | None,
    summarizer: Summarizer,
    counter: TokenCounter,
) -> None:
    """Extract and merge what the graph is missing; without an extractor, still drop the provenance of
    re-chunked or removed documents so an existing graph never cites chunks that are gone."""
    if extractor is not None:
        build_graph(store, extractor, summarizer, progress, report, embedder=embedder, counter=counter)
        return
    if refresh_graph(store, summarizer, counter).changed:
        mark_graph_vectors_stale(store)
    report.graph_texts_embedded += ensure_graph_vectors(store, embedder)


def finalize_statuses(store: Store, extractor_name: str | None = None) -> None:
    """Advance documents whose chunks are all embedded (and, with an extractor, all extracted) to
    INDEXED; a document with chunks still to extract (or whose extraction failed) stays EMBEDDED."""
    pending = set(store.graph.documents_needing_extraction(extractor_name)) if extractor_name else set()
    statuses = [DocumentStatus.CHUNKED, DocumentStatus.EMBEDDED] + ([DocumentStatus.INDEXED] if pending else [])
    with store.transaction():
        for status in statuses:
            for doc in store.documents.list(status):
                target = DocumentStatus.EMBEDDED if doc.id in pending else DocumentStatus.INDEXED
                if target != doc.status:
                    store.documents.set_status(doc.id, target)


def remove_documents(
    store: Store,
    refs: Sequence[str],
    summarizer: Summarizer | None = None,
    embedder_factory: Callable[[], Embedder] | None = None,
) -> tuple[list[str], list[str]]:
    """Delete documents by id, source or path (a path removes all records of that file).

    Returns (removed sources, refs that matched nothing). Chunks, FTS rows and graph provenance go
    with the document in the same transaction; then the graph drops what has no provenance left and
    re-summarises what lost some (and, given an ``embedder_factory``, re-embeds what changed; the model is
    loaded only then).
    """
    removed: list[str] = []
    unknown: list[str] = []
    with store.transaction():
        for ref in refs:
            matches = _resolve_ref(store, ref)
            if not matches:
                unknown.append(ref)
            for doc_id, source in matches:
                store.documents.delete(doc_id)
                removed.append(source)
    # graph: refresh only when something went; re-embed what the refresh changed
    if removed and refresh_graph(store, summarizer or ExtractiveSummarizer()).changed:
        mark_graph_vectors_stale(store)
        if embedder_factory is not None:
            ensure_graph_vectors(store, embedder_factory())
    return removed, unknown


def _resolve_ref(store: Store, ref: str) -> list[tuple[str, str]]:
    doc = store.documents.get(ref) or store.documents.by_source(ref)
    if doc is not None:
        return [(doc.id, doc.source)]
    return [(d.id, d.source) for d in file_documents(store, str(Path(ref).expanduser().resolve()))]
