"""The indexing run: discover → ingest (chunk + FTS) → embed → mark indexed, with a report.

Each stage only does what is missing, so re-running on unchanged files does no work and a killed run
resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from kgrag.config import KgragConfig
from kgrag.documents import discover
from kgrag.errors import DocumentError
from kgrag.indexing.embed import embed_missing_chunks
from kgrag.indexing.ingest import ChunkPlan, Ingestor
from kgrag.indexing.progress import Progress
from kgrag.indexing.report import FileProblem, IndexReport
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store
from kgrag.store.records import DocumentStatus

INGEST_STAGE = "read+chunk"


def run_index(paths: Sequence[Path], store: Store, config: KgragConfig, plan: ChunkPlan,
              embedder: Embedder, progress: Progress) -> IndexReport:
    """Index ``paths`` (files or directories) into ``store``."""
    report = IndexReport()
    started = time.perf_counter()
    try:
        files = discover(paths, config.documents.include, config.documents.exclude)
    except DocumentError as exc:
        report.problems.append(FileProblem(path=", ".join(map(str, paths)), reason=str(exc)))
        return report
    report.add_time("discover", time.perf_counter() - started)
    report.files_seen = len(files)
    ingestor = Ingestor(store, config.documents, plan)
    progress.start(INGEST_STAGE, len(files))
    for path in files:
        if ingestor.is_unchanged(path):
            report.documents_unchanged += ingestor.document_count(path)
        else:
            ingestor.ingest(path, report)
        progress.advance(INGEST_STAGE)
    progress.finish(INGEST_STAGE)
    embed_missing_chunks(store, embedder, config.embedding.batch_size, progress, report)
    finalize_statuses(store)
    for problem in report.problems:
        progress.note(f"skipped {problem.path}: {problem.reason}")
    return report


def finalize_statuses(store: Store) -> None:
    """Advance documents whose chunks are all embedded. Later stages (graph) will slot in here."""
    with store.transaction():
        for status in (DocumentStatus.CHUNKED, DocumentStatus.EMBEDDED):
            for doc in store.documents.list(status):
                store.documents.set_status(doc.id, DocumentStatus.INDEXED)


def remove_documents(store: Store, refs: Sequence[str]) -> tuple[list[str], list[str]]:
    """Delete documents by id, source or path (a path removes all records of that file).

    Returns (removed sources, refs that matched nothing). Chunks, FTS rows and (later) provenance go
    with the document in the same transaction.
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
    return removed, unknown


def _resolve_ref(store: Store, ref: str) -> list[tuple[str, str]]:
    doc = store.documents.get(ref) or store.documents.by_source(ref)
    if doc is not None:
        return [(doc.id, doc.source)]
    source = str(Path(ref).expanduser().resolve())
    docs = store.documents.with_source_prefix(source + "#")
    single = store.documents.by_source(source)
    return [(d.id, d.source) for d in docs + ([single] if single else [])]
