"""``ws.documents``: what is indexed, in which state, and why a file failed."""

from __future__ import annotations

from collections.abc import Sequence

from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus
from kgrag.workspace.components import Components


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
