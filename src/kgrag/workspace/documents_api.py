"""``ws.documents``: what is indexed, in which state, and why a file failed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgrag.core.document_views import DocumentSize, RemovalPreview
from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus
from kgrag.documents.provenance import SourceRef
from kgrag.workspace.components import Components

if TYPE_CHECKING:
    from kgrag.retrieval.lookup import Shown


class DocumentsAPI:
    """Read-only views of the documents table (removal goes through ``ws.indexing.remove``, which also
    cleans the graph)."""

    def __init__(self, parts: Components) -> None:
        self._parts = parts

    def get(self, doc_id: str) -> DocumentRecord | None:
        return self._parts.store.documents.get(doc_id)

    def counts(self) -> dict[str, int]:
        """Documents per status."""
        return self._parts.store.documents.count_by_status()

    def chunk_count(self) -> int:
        return self._parts.store.chunks.count()

    def failed(self) -> list[DocumentRecord]:
        """Documents that could not be read, with the reason in ``error``."""
        return self._parts.store.documents.list(DocumentStatus.FAILED)

    def chunks(self, chunk_ids: Sequence[str]) -> list[ChunkRecord]:
        """The passages behind citations and provenance (unknown ids are left out)."""
        return self._parts.store.chunks.get_many(chunk_ids)

    def list(self, status: DocumentStatus | None = None) -> list[DocumentRecord]:
        """Every document (or those in ``status``), in indexing order."""
        return self._parts.store.documents.list(status)

    def sources(self, chunk_ids: Sequence[str]) -> dict[str, SourceRef]:
        """Where each chunk comes from (file or record, title, section, page), by chunk id; unknown ids are
        left out. Only the chunks back to each passage's section heading are read, not whole documents."""
        from kgrag.retrieval.lookup import chunk_sources  # lazily: a query that cites passages loads no graph code

        return {ref.chunk_id: ref for ref in chunk_sources(self._parts.store, chunk_ids)}

    def show(self, ident: str) -> Shown | None:
        """The chunk, document (id, source or file path), entity or relation ``ident`` names, with its text
        and sources (``kgrag show``); None when nothing does."""
        from kgrag.retrieval.lookup import show

        return show(self._parts.store, ident)

    def sizes(self) -> dict[str, DocumentSize]:
        """Passages and entities per document id (a copy counts its original's); documents without
        passages are left out (:func:`kgrag.indexing.preview.document_sizes`)."""
        from kgrag.indexing.preview import document_sizes  # inside: a query must not load the indexing layer

        return document_sizes(self._parts.store)

    def removal_preview(self, doc_id: str) -> RemovalPreview | None:
        """What ``ws.indexing.remove([doc_id])`` would remove, without removing anything; None when there
        is no such document."""
        return self.removal_preview_many([doc_id])

    def removal_preview_many(self, doc_ids: Sequence[str]) -> RemovalPreview | None:
        """What ``ws.indexing.remove(doc_ids)`` would remove at once, without removing anything; None when
        one of them does not exist (:func:`kgrag.indexing.preview.removal_preview`)."""
        from kgrag.indexing.preview import removal_preview

        return removal_preview(self._parts.store, doc_ids)
