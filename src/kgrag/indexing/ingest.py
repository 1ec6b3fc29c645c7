"""The work of the ``ingest`` stage: files → documents → chunks (+ full-text index), one transaction per document.

A document is either fully chunked or untouched: killing the process mid-way leaves no half-written
document, and the next run continues with the files it had not reached. Reading and chunking a file is
:mod:`kgrag.indexing.prepare` (pure compute, so an engine may run it elsewhere); deciding what needs
reading (:meth:`Ingestor.pending`) and writing the outcome (:meth:`Ingestor.apply`) stay here.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

from kgrag.config import DocumentsConfig
from kgrag.core.ids import document_id
from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.core.registry import Registry
from kgrag.core.stages import INGEST, timing_key
from kgrag.documents import Loader
from kgrag.documents.discovery import file_identity
from kgrag.documents.loaders import READER_VERSION
from kgrag.documents.snippets import includes_changed, left_out_of
from kgrag.indexing.prepare import ChunkPlan, PreparedDocument, PreparedFile, build_chunk_records, load_file
from kgrag.indexing.report import FileProblem, IndexReport
from kgrag.indexing.sync import DUPLICATE_OF, drop_document, file_gone, file_of, is_duplicate
from kgrag.store.base import Store

LOAD_TIME, CHUNK_TIME, STORE_TIME = (timing_key(INGEST, part) for part in ("load", "chunk", "store"))
__all__ = [
    "ChunkPlan",
    "IngestReport",
    "Ingestor",
    "PendingFile",
    "build_chunk_records",
    "file_documents",
    "file_fingerprint",
]
_DONE = {DocumentStatus.CHUNKED, DocumentStatus.EMBEDDED, DocumentStatus.INDEXED}


@dataclass
class IngestReport:
    """The ``ingest`` stage's counts: documents by what happened to them, and chunks written. A moved document
    has the same content under a new path (re-pointed, nothing re-made); a duplicate is a copy of a stored
    document's content (recorded, not stored twice)."""

    documents_new: int = 0
    documents_changed: int = 0
    documents_unchanged: int = 0
    documents_removed: int = 0
    documents_moved: int = 0
    documents_duplicate: int = 0
    chunks_written: int = 0
    failed_unchanged: int = 0  # files that failed before and did not change: not read again


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


def failed_before(docs: list[DocumentRecord], fingerprint: str) -> bool:
    """Whether the file's only record is a failure of this very version of it (same size and mtime)."""
    return all(d.status == DocumentStatus.FAILED and d.metadata.get("fingerprint") == fingerprint for d in docs)


@dataclass(frozen=True)
class PendingFile:
    """A file whose documents must be brought up to date: its path, its documents as stored before, and
    the fingerprint to record."""

    path: Path
    docs: list[DocumentRecord]
    fingerprint: str


class Ingestor:
    """Reads files and writes their documents and chunks; reports per-file problems and moves on."""

    def __init__(
        self, store: Store, cfg: DocumentsConfig, plan: ChunkPlan, loaders: Registry[Loader] | None = None
    ) -> None:
        self.store = store
        self.cfg = cfg
        self.plan = plan
        self.loaders = loaders
        self.stale_hashes: set[str] = set()  # content that left a document: its copies are checked after the run

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
        if docs and not self.cfg.retry_failed and failed_before(docs, fingerprint):
            report.stage(INGEST, IngestReport).failed_unchanged += 1
            return None
        if docs and all(
            d.status in _DONE
            and d.metadata.get("fingerprint") == fingerprint
            and d.metadata.get("reader") == READER_VERSION
            and d.metadata.get("chunking") == self.plan.signature
            and not includes_changed(d.metadata)
            for d in docs
        ):
            report.stage(INGEST, IngestReport).documents_unchanged += len(docs)
            return None
        return PendingFile(path, docs, fingerprint)

    def process(self, path: Path, report: IndexReport) -> None:
        """Skip the file if nothing changed (no read), else load and ingest it; problems are reported."""
        work = self.pending(path, report)
        if work is not None:
            self.apply(work, load_file(path, self.cfg, self.loaders), report)

    def apply(self, work: PendingFile, prepared: PreparedFile, report: IndexReport) -> None:
        """Bring the file's documents (``work.docs``, as stored before) in line with what reading it gave."""
        report.add_time(LOAD_TIME, prepared.load_seconds)
        report.add_time(CHUNK_TIME, prepared.chunk_seconds)
        if prepared.error is not None:
            self._record_failure(work.path, prepared.error, report, work.docs, work.fingerprint, prepared.error_title)
            return
        keep = {doc.loaded.source for doc in prepared.documents}
        for stored in work.docs:
            if stored.source not in keep:  # record gone from a json file, or an earlier failure entry
                with self.store.transaction():
                    drop_document(self.store, stored)
                report.stage(INGEST, IngestReport).documents_removed += stored.status != DocumentStatus.FAILED
        for doc in prepared.documents:
            self._ingest_document(doc, work.fingerprint, report)
            left_out = left_out_of(doc.loaded.metadata)
            if left_out:  # the page is indexed; what it could not include is said once, as the run goes
                report.notes.append(FileProblem(str(work.path), "includes left out: " + "; ".join(left_out)))

    def _ingest_document(self, prepared: PreparedDocument, fingerprint: str, report: IndexReport) -> None:
        doc = prepared.loaded
        existing = self.store.documents.by_source(doc.source)
        doc_id = existing.id if existing else document_id(doc.source)  # a moved document keeps its first id
        metadata = {
            **doc.metadata,
            "fingerprint": fingerprint,
            "chunking": self.plan.signature,
            "reader": READER_VERSION,
        }
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
        twin = self._twin(doc.content_hash, doc_id)
        if twin is not None:
            self._adopt(record, twin, existing, doc.text, report)
            return
        if (
            existing
            and existing.content_hash == doc.content_hash
            and existing.status in _DONE
            and existing.metadata.get("chunking") == self.plan.signature
            and not is_duplicate(existing)
        ):
            report.stage(INGEST, IngestReport).documents_unchanged += 1
            if existing.metadata != metadata:
                self.store.documents.upsert(DocumentRecord(**{**record.__dict__, "status": existing.status}))
            return
        if existing is not None and existing.content_hash != doc.content_hash and not is_duplicate(existing):
            self.stale_hashes.add(existing.content_hash)
        if prepared.chunks is None or any(c.doc_id != doc_id for c in prepared.chunks):
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
        report.stage(INGEST, IngestReport).chunks_written += len(chunks)
        if existing is None or existing.status == DocumentStatus.FAILED or is_duplicate(existing):
            report.stage(INGEST, IngestReport).documents_new += 1
        else:
            report.stage(INGEST, IngestReport).documents_changed += 1

    def _twin(self, content_hash: str, own_id: str) -> DocumentRecord | None:
        """A stored document with this content under another path, preferring one whose file is gone."""
        twins = [
            d
            for d in self.store.documents.with_content_hash(content_hash)
            if d.id != own_id and d.status in _DONE and not is_duplicate(d)
        ]
        gone = [d for d in twins if file_gone(d.source)]
        return next(iter(gone or twins), None)

    def _adopt(
        self, record: DocumentRecord, twin: DocumentRecord, existing: DocumentRecord | None, text: str,
        report: IndexReport,
    ) -> None:  # fmt: skip
        """The document's content is ``twin``'s: take ``twin`` over if its file is gone (a move), else
        record this path as a duplicate of it (no chunks of its own)."""
        with self.store.transaction():
            if file_gone(twin.source):
                if existing is not None:
                    drop_document(self.store, existing)
                moved = replace(twin, source=record.source, title=record.title, metadata=record.metadata)
                self.store.documents.upsert(replace(moved, updated_at=time.time()))
                if twin.metadata.get("chunking") != self.plan.signature:
                    self.store.chunks.replace_for_document(twin.id, build_chunk_records(twin.id, text, self.plan))
                report.stage(INGEST, IngestReport).documents_moved += 1
                return
            if existing is not None and not is_duplicate(existing):
                self.stale_hashes.add(existing.content_hash)
            copy = replace(record, status=twin.status, metadata={**record.metadata, DUPLICATE_OF: twin.id})
            self.store.documents.upsert(copy)
            self.store.chunks.replace_for_document(record.id, [])
        if existing is not None and existing.metadata.get(DUPLICATE_OF) == twin.id:
            report.stage(INGEST, IngestReport).documents_unchanged += 1
        else:
            report.stage(INGEST, IngestReport).documents_duplicate += 1

    def reconcile(self, report: IndexReport) -> None:
        """Copies whose document changed or went this run hold content no document has any more: read
        their files again (they become documents of their own, or copies of another one)."""
        for content_hash in sorted(self.stale_hashes):
            for copy in self.store.documents.with_content_hash(content_hash):
                holder = self.store.documents.get(copy.metadata.get(DUPLICATE_OF, ""))
                if not is_duplicate(copy) or (holder is not None and holder.content_hash == copy.content_hash):
                    continue
                if file_gone(copy.source):
                    with self.store.transaction():
                        self.store.documents.delete(copy.id)
                    continue
                path = file_of(copy.source)
                stored = file_documents(self.store, str(path))
                self.apply(
                    PendingFile(path, stored, copy.metadata.get("fingerprint", "")),
                    load_file(path, self.cfg, self.loaders),
                    report,
                )
        self.stale_hashes.clear()

    def _record_failure(
        self, path: Path, reason: str, report: IndexReport, docs: list[DocumentRecord], fingerprint: str = "",
        title: str = "",
    ) -> None:  # fmt: skip
        """Report the file; record it as failed (with its fingerprint, so that it is read again only once it
        changes, and under ``title``, the title the file gives itself, else its name) unless an earlier good
        version of it is stored."""
        report.problems.append(FileProblem(path=str(path), reason=reason))
        source = str(file_identity(path))
        if docs:
            return  # keep the last good version searchable; the problem is reported
        self.store.documents.upsert(
            DocumentRecord(
                id=document_id(source),
                source=source,
                title=title or path.name,
                content_hash="",
                status=DocumentStatus.FAILED,
                error=reason,
                metadata={"fingerprint": fingerprint} if fingerprint else {},
                updated_at=time.time(),
            )
        )
