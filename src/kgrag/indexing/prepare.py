"""The pure-compute half of ingesting a file: load it and cut its documents into chunk records.

Split from :mod:`kgrag.indexing.ingest` (which decides what needs reading and writes the results) so an
indexing engine can run this half anywhere, e.g. on Ray workers, while the writes stay with the store's
owner. Nothing here touches the store; everything here is picklable, so it crosses process boundaries.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.core.ids import chunk_id, document_id
from kgrag.core.records import ChunkRecord
from kgrag.core.registry import Registry
from kgrag.documents import Loader, TokenCounter, chunk_text, load_path
from kgrag.documents.records import LoadedDocument, content_hash


@dataclass(frozen=True)
class ChunkPlan:
    """How documents are cut; its signature is stored per document so a change re-chunks everything."""

    size: int
    overlap: int
    counter: TokenCounter

    @property
    def signature(self) -> str:
        return f"{self.counter.name}/{self.size}/{self.overlap}"


@dataclass(frozen=True)
class PortablePlan:
    """A :class:`ChunkPlan` as plain values (a tokenizer does not travel between processes): rebuilt on
    the worker with :meth:`plan`, it cuts exactly as the driver's plan does."""

    size: int
    overlap: int
    encoding: str

    @classmethod
    def of(cls, plan: ChunkPlan) -> PortablePlan:
        return cls(plan.size, plan.overlap, plan.counter.name)

    def plan(self) -> ChunkPlan:
        return ChunkPlan(self.size, self.overlap, TokenCounter.for_encoding(self.encoding))


@dataclass(frozen=True)
class PreparedDocument:
    """One loaded document and, when the engine chunked it already, its chunk records (None: chunk it
    only if it changed, as the local engine does to spare unchanged records of a touched file)."""

    loaded: LoadedDocument
    chunks: tuple[ChunkRecord, ...] | None = None


@dataclass(frozen=True)
class PreparedFile:
    """What reading one file gave: its documents, or the loader's error (the file is then reported) and the
    title the file gives itself ("" when unknown)."""

    documents: tuple[PreparedDocument, ...] = ()
    error: str | None = None
    error_title: str = ""
    load_seconds: float = 0.0
    chunk_seconds: float = 0.0


def build_chunk_records(doc_id: str, text: str, plan: ChunkPlan) -> list[ChunkRecord]:
    """The chunk records of one document; ids follow (document, text hash, occurrence), so re-chunking
    unchanged text gives the same ids."""
    records: list[ChunkRecord] = []
    seen: dict[str, int] = {}
    for chunk in chunk_text(text, plan.counter, plan.size, plan.overlap):
        text_hash = content_hash(chunk.text)
        occurrence = seen.get(text_hash, 0)
        seen[text_hash] = occurrence + 1
        records.append(
            ChunkRecord(
                id=chunk_id(doc_id, text_hash, occurrence),
                doc_id=doc_id,
                ord=chunk.ord,
                char_start=chunk.char_start,
                char_end=chunk.char_end,
                text=chunk.text,
                n_tokens=chunk.n_tokens,
                text_hash=text_hash,
            )
        )
    return records


def load_file(path: Path, cfg: DocumentsConfig, loaders: Registry[Loader] | None = None) -> PreparedFile:
    """Load ``path`` without chunking (the local engine chunks only documents that changed), with the
    workspace's ``loaders`` (default: built-ins and plug-ins)."""
    started = time.perf_counter()
    try:
        loaded = load_path(path, cfg, loaders)
    except DocumentError as exc:
        return PreparedFile(error=str(exc), error_title=exc.title, load_seconds=time.perf_counter() - started)
    documents = tuple(PreparedDocument(doc) for doc in loaded)
    return PreparedFile(documents, load_seconds=time.perf_counter() - started)


def prepare_file(path: Path, cfg: DocumentsConfig, plan: ChunkPlan, loaders: Registry[Loader] | None) -> PreparedFile:
    """Load ``path`` with ``loaders`` (the workspace's; None: built-ins and plug-ins) and chunk every
    document in it: the whole pure-compute part of ingesting a file."""
    loaded = load_file(path, cfg, loaders)
    if loaded.error is not None:
        return loaded
    started = time.perf_counter()
    documents = tuple(
        PreparedDocument(d.loaded, tuple(build_chunk_records(document_id(d.loaded.source), d.loaded.text, plan)))
        for d in loaded.documents
    )
    return PreparedFile(documents, load_seconds=loaded.load_seconds, chunk_seconds=time.perf_counter() - started)
