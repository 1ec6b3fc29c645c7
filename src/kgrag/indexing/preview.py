"""What the documents table looks like from the index's side: how much of it each document accounts for,
and what removing documents would take with it (``ws.documents.sizes``, ``removal_preview``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kgrag.core.document_views import DocumentSize, RemovalPreview
from kgrag.indexing.sync import DUPLICATE_OF
from kgrag.store import Store


def document_sizes(store: Store) -> dict[str, DocumentSize]:
    """Passages and entities per document id (a copy counts its original's); documents without
    passages are left out. One pass over the chunks and the entities' provenance."""
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


def removal_preview(store: Store, doc_ids: Sequence[str]) -> RemovalPreview | None:
    """What removing ``doc_ids`` at once would take (an entity found only in documents of the set goes
    too), without removing anything; None when one of them does not exist. Documents taken over by a copy
    count as records only."""
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
    stale = bool(touched_ids) and any(touched_ids.intersection(c.entity_ids) for c in store.communities.communities())
    taken = len(whole) < len(docs)
    return RemovalPreview(len(chunk_ids), len(gone), len(relations_gone), len(touched), stale, taken)
