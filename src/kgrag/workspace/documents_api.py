"""``ws.documents``: what is indexed, in which state, and why a file failed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus
from kgrag.documents.provenance import SourceRef
from kgrag.graph.lookup import Shown, chunk_sources, show
from kgrag.workspace.components import Components


@dataclass(frozen=True)
class DocumentSize:
    """How much of the index one document accounts for: its passages and the entities extracted from them."""

    chunks: int = 0
    entities: int = 0


@dataclass(frozen=True)
class RemovalPreview:
    """What removing a document would take with it: its passages, the entities and relations that have no
    other provenance, and whether community reports would describe a graph that changed."""

    chunks: int
    entities: int
    relations: int
    entities_touched: int
    communities_stale: bool
    taken_over: bool
    """A copy of the document takes it over: only the record goes."""


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
        return {ref.chunk_id: ref for ref in chunk_sources(self._parts.store, chunk_ids)}

    def show(self, ident: str) -> Shown | None:
        """The chunk, document (id, source or file path), entity or relation ``ident`` names, with its text
        and sources (``kgrag show``); None when nothing does."""
        return show(self._parts.store, ident)

    def sizes(self) -> dict[str, DocumentSize]:
        """Passages and entities per document id (a copy counts its original's); documents without
        passages are left out. One pass over the chunks and the entities' provenance."""
        from kgrag.indexing.sync import DUPLICATE_OF  # inside: a query must not load the indexing layer

        store = self._parts.store
        owner: dict[str, str] = {}
        chunks: Counter[str] = Counter()
        for chunk in store.chunks.iter_all():
            owner[chunk.id] = chunk.doc_id
            chunks[chunk.doc_id] += 1
        entities: Counter[str] = Counter()
        for entity in store.graph.entities():
            entities.update({owner[c] for c in entity.chunk_ids if c in owner})
        sizes = {doc_id: DocumentSize(n, entities[doc_id]) for doc_id, n in chunks.items()}
        for doc in store.documents.list():
            holder = doc.metadata.get(DUPLICATE_OF)
            if holder and holder in sizes:
                sizes[doc.id] = sizes[holder]
        return sizes

    def removal_preview(self, doc_id: str) -> RemovalPreview | None:
        """What ``ws.indexing.remove([doc_id])`` would remove, without removing anything; None when there
        is no such document."""
        return self.removal_preview_many([doc_id])

    def removal_preview_many(self, doc_ids: Sequence[str]) -> RemovalPreview | None:
        """What ``ws.indexing.remove(doc_ids)`` would remove at once (an entity found only in documents of
        the set goes too), without removing anything; None when one of them does not exist. Documents
        taken over by a copy count as records only."""
        from kgrag.indexing.sync import DUPLICATE_OF

        store = self._parts.store
        docs = [store.documents.get(i) for i in doc_ids]
        if not docs or any(d is None for d in docs):
            return None
        copied = {d.metadata.get(DUPLICATE_OF) for d in store.documents.list()} - {None}
        whole = [d for d in docs if d is not None and not d.metadata.get(DUPLICATE_OF) and d.id not in copied]
        if not whole:
            return RemovalPreview(0, 0, 0, 0, False, True)
        chunk_ids = {c.id for d in whole for c in store.chunks.for_document(d.id)}
        touched = [e for e in store.graph.entities() if chunk_ids.intersection(e.chunk_ids)]
        gone = {e.id for e in touched if chunk_ids.issuperset(e.chunk_ids)}
        relations = store.graph.relations_of([e.id for e in touched]) if touched else []
        relations_gone = [
            r
            for r in relations
            if r.source_id in gone or r.target_id in gone or (r.chunk_ids and chunk_ids.issuperset(r.chunk_ids))
        ]
        touched_ids = {e.id for e in touched}
        stale = bool(touched_ids) and any(
            touched_ids.intersection(c.entity_ids) for c in store.communities.communities()
        )
        taken = len(whole) < len(docs)
        return RemovalPreview(len(chunk_ids), len(gone), len(relations_gone), len(touched), stale, taken)
