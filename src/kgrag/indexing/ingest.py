"""The work of the ``ingest`` stage: files → documents → chunks (+ full-text index), one transaction per document.

A document is either fully chunked or untouched: killing the process mid-way leaves no half-written
document, and the next run continues with the files it had not reached. Reading and chunking a file is
:mod:`kgrag.indexing.prepare` (pure compute, so an engine may run it elsewhere); deciding what needs
reading (:meth:`Ingestor.pending`) and writing the outcome (:meth:`Ingestor.apply`) stay here.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from kgrag.config import DocumentsConfig
from kgrag.core.ids import document_id
from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.core.stages import INGEST, timing_key
from kgrag.documents.discovery import file_identity
from kgrag.indexing.prepare import ChunkPlan, PreparedDocument, PreparedFile, build_chunk_records, load_file
from kgrag.indexing.report import FileProblem, IndexReport
from kgrag.store.base import Store

LOAD_TIME, CHUNK_TIME, STORE_TIME = (timing_key(INGEST, part) for part in ("load", "chunk", "store"))
__all__ = ["ChunkPlan", "Ingestor", "PendingFile", "build_chunk_records", "file_documents", "file_fingerprint"]
_DONE = {DocumentStatus.CHUNKED, DocumentStatus.EMBEDDED, DocumentStatus.INDEXED}


def file_fingerprint(path: Path) -> str:
    """Size and modification time: lets unchanged files be skipped without reading them."""
    stat = path.stat()
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def file_documents(store: Store, source: str) -> list[DocumentRecord]:
    """The documents of one file: its records (``source#key``, from .json/.jsonl) and/or ``source`` itself."""
    docs = store.documents.with_source_prefix(source + "#")
    single = store.documents.by_source(source)
    return docs + ([single] if single else [])


def is_storable_name(path: Path) -> bool:
    """Whether ``path`` is valid Unicode text. A name in another encoding reaches Python with lone
    surrogates (``os.fsdecode``), which no database, JSON file or terminal accepts as text."""
    try:
        str(path.absolute()).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def display_path(path: Path) -> str:
    """``path`` as printable text, undecodable bytes written as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class PendingFile:
    """A file whose documents must be brought up to date: its path, its documents as stored before, and
    the fingerprint to record."""

    path: Path
    docs: list[DocumentRecord]
    fingerprint: str


class Ingestor:
    """Reads files and writes their documents and chunks; reports per-file problems and moves on."""

    def __init__(self, store: Store, cfg: DocumentsConfig, plan: ChunkPlan) -> None:
        self.store = store
        self.cfg = cfg
        self.plan = plan

    def _file_docs(self, path: Path) -> list[DocumentRecord]:
        return file_documents(self.store, str(file_identity(path)))

    def pending(self, path: Path, report: IndexReport) -> PendingFile | None:
        """What reading ``path`` would have to update, or None when there is nothing to do: the file is
        unchanged (not read at all) or was reported as a problem."""
        if not is_storable_name(path):
            report.problems.append(
                FileProblem(
                    display_path(path),
                    "the file name is not valid UTF-8, so it cannot be stored or shown; rename the file to index it",
                )
            )
            return None
        docs = self._file_docs(path)
        try:
            fingerprint = file_fingerprint(path)
        except OSError as exc:  # vanished or became unreadable since discovery
            self._record_failure(path, f"{path}: cannot read ({exc.strerror}); skipped", report, docs)
            return None
        if docs and all(
            d.status in _DONE
            and d.metadata.get("fingerprint") == fingerprint
            and d.metadata.get("chunking") == self.plan.signature
            for d in docs
        ):
            report.documents_unchanged += len(docs)
            return None
        return PendingFile(path, docs, fingerprint)

    def process(self, path: Path, report: IndexReport) -> None:
        """Skip the file if nothing changed (no read), else load and ingest it; problems are reported."""
        work = self.pending(path, report)
        if work is not None:
            self.apply(work, load_file(path, self.cfg), report)

    def apply(self, work: PendingFile, prepared: PreparedFile, report: IndexReport) -> None:
        """Bring the file's documents (``work.docs``, as stored before) in line with what reading it gave."""
        report.add_time(LOAD_TIME, prepared.load_seconds)
        report.add_time(CHUNK_TIME, prepared.chunk_seconds)
        if prepared.error is not None:
            self._record_failure(work.path, prepared.error, report, work.docs)
            return
        keep = {doc.loaded.source for doc in prepared.documents}
        for stored in work.docs:
            if stored.source not in keep:  # record gone from a json file, or an earlier failure entry
                self.store.documents.delete(stored.id)
                report.documents_removed += stored.status != DocumentStatus.FAILED
        for doc in prepared.documents:
            self._ingest_document(doc, work.fingerprint, report)

    def _ingest_document(self, prepared: PreparedDocument, fingerprint: str, report: IndexReport) -> None:
        doc = prepared.loaded
        doc_id = document_id(doc.source)
        existing = self.store.documents.get(doc_id)
        metadata = {**doc.metadata, "fingerprint": fingerprint, "chunking": self.plan.signature}
        record = DocumentRecord(
            id=doc_id,
            source=doc.source,
            title=doc.title,
            content_hash=doc.content_hash,
            status=DocumentStatus.CHUNKED,
            n_chars=len(doc.text),
            metadata=metadata,
            updated_at=time.time(),
        )
        if (
            existing
            and existing.content_hash == doc.content_hash
            and existing.status in _DONE
            and existing.metadata.get("chunking") == self.plan.signature
        ):
            report.documents_unchanged += 1
            if existing.metadata != metadata:
                self.store.documents.upsert(DocumentRecord(**{**record.__dict__, "status": existing.status}))
            return
        if prepared.chunks is None:
            started = time.perf_counter()
            chunks = build_chunk_records(doc_id, doc.text, self.plan)
            report.add_time(CHUNK_TIME, time.perf_counter() - started)
        else:
            chunks = list(prepared.chunks)
        started = time.perf_counter()
        with self.store.transaction():
            self.store.documents.upsert(record)
            self.store.chunks.replace_for_document(doc_id, chunks)
        report.add_time(STORE_TIME, time.perf_counter() - started)
        report.chunks_written += len(chunks)
        if existing is None or existing.status == DocumentStatus.FAILED:
            report.documents_new += 1
        else:
            report.documents_changed += 1

    def _record_failure(self, path: Path, reason: str, report: IndexReport, docs: list[DocumentRecord]) -> None:
        report.problems.append(FileProblem(path=str(path), reason=reason))
        source = str(file_identity(path))
        if docs:
            return  # keep the last good version searchable; the problem is reported
        self.store.documents.upsert(
            DocumentRecord(
                id=document_id(source),
                source=source,
                title=path.name,
                content_hash="",
                status=DocumentStatus.FAILED,
                error=reason,
                updated_at=time.time(),
            )
        )
