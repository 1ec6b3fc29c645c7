"""Entity and relation embeddings, and the in-memory graph index that query-time steps search.

Vectors live in the shared ``embeddings`` table keyed by (model, hash of the embedded text), like chunk
vectors: an entity whose description did not change is never embedded again, and one whose description
was re-summarised simply gets a new text hash. The embedded text carries the name and type with the
description (``"name (type): description"``) so that a query naming the entity lands on it even when
the description is short.

:func:`load_graph_index` builds the in-memory :class:`GraphIndex` (entities, relations, adjacency and
vector matrices); query-time steps keep it in a :class:`kgrag.store.hot.HotValue`, reloaded only when the
store's write generation changes, as the dense chunk index is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from kgrag.documents import content_hash
from kgrag.models.embeddings import Embedder
from kgrag.retrieval.vector_index import DenseIndex
from kgrag.store.base import Store
from kgrag.store.graph_records import EntityRecord, RelationRecord

EMBED_BATCH = 256
VECTORS_META_KEY = "graph.vectors"


def entity_text(entity: EntityRecord) -> str:
    """What an entity's vector is made from."""
    text = f"{entity.name} ({entity.type})"
    return f"{text}: {entity.description}" if entity.description else text


def relation_text(relation: RelationRecord, names: dict[str, str]) -> str:
    """What a relation's vector is made from: ``"source label target: description"``."""
    source = names.get(relation.source_id, relation.source_id)
    target = names.get(relation.target_id, relation.target_id)
    text = f"{source} {relation.label.replace('_', ' ')} {target}"
    return f"{text}: {relation.description}" if relation.description else text


def _graph_texts(entities: Sequence[EntityRecord], relations: Sequence[RelationRecord]) -> dict[str, str]:
    """hash → text for every entity and relation given."""
    names = {e.id: e.name for e in entities}
    texts = [entity_text(e) for e in entities] + [relation_text(r, names) for r in relations]
    return {content_hash(t): t for t in texts}


def embed_graph(
    store: Store, embedder: Embedder, batch_size: int = EMBED_BATCH, *, with_relations: bool = False
) -> int:
    """Embed the entities (and, if asked, relations) whose current text has no vector yet; returns how
    many texts were embedded.

    Relations are off by default: no built-in query step searches relation vectors yet, and with a local
    model they cost about twice the entities' embedding time (measured on the sample corpus: 3.7k
    relations vs 1.7k entities). Each batch is committed on its own, so an interrupted run resumes.
    """
    relations = store.graph.relations() if with_relations else []
    texts = _graph_texts(store.graph.entities(), relations)
    if not texts:
        return 0
    present = store.vectors.get(embedder.name, list(texts))
    missing = [(h, t) for h, t in texts.items() if h not in present]
    for start in range(0, len(missing), batch_size):
        batch = missing[start : start + batch_size]
        vectors = embedder.embed([t for _, t in batch])
        store.vectors.put(embedder.name, zip([h for h, _ in batch], vectors, strict=True))
    return len(missing)


def _fingerprint(store: Store, model: str, with_relations: bool) -> str:
    counts = store.graph.counts()
    sizes = "|".join(str(counts[k]) for k in ("entities", "relations", "entity_mentions", "relation_mentions"))
    return f"{model}|{sizes}|relations={with_relations}"


def mark_graph_vectors_stale(store: Store) -> None:
    """Record that the graph changed, so the next :func:`ensure_graph_vectors` embeds what is missing."""
    store.meta.set(VECTORS_META_KEY, "")


def ensure_graph_vectors(store: Store, embedder: Embedder, *, with_relations: bool = False) -> int:
    """:func:`embed_graph` unless nothing changed since the last complete run for this model.

    Unchanged re-runs must cost nothing, and scanning every entity to find missing vectors is not
    nothing on a large graph. The marker holds the model and the graph's sizes when vectors were last
    completed; it is cleared by :func:`mark_graph_vectors_stale`, and the sizes catch graph writers
    that never call it (imports). Reading ``embedder.name`` does not load a lazy model.
    """
    fingerprint = _fingerprint(store, embedder.name, with_relations)
    if store.meta.get(VECTORS_META_KEY) == fingerprint:
        return 0
    embedded = embed_graph(store, embedder, with_relations=with_relations)
    store.meta.set(VECTORS_META_KEY, fingerprint)
    return embedded


def _dense(ids: list[str], hashes: list[str], vectors: dict[str, np.ndarray]) -> DenseIndex:
    kept = [(i, vectors[h]) for i, h in zip(ids, hashes, strict=True) if h in vectors]
    if not kept:
        return DenseIndex([], np.zeros((0, 0), dtype=np.float32))
    return DenseIndex([i for i, _ in kept], np.stack([v for _, v in kept]))


@dataclass
class GraphIndex:
    """The whole graph in memory: records by id, key lookup, adjacency and vector indexes."""

    entities: dict[str, EntityRecord]
    relations: dict[str, RelationRecord]
    by_key: dict[str, str]
    adjacency: dict[str, list[str]] = field(default_factory=dict)
    entity_vectors: DenseIndex = field(default_factory=lambda: DenseIndex([], np.zeros((0, 0))))
    relation_vectors: DenseIndex = field(default_factory=lambda: DenseIndex([], np.zeros((0, 0))))

    @property
    def empty(self) -> bool:
        return not self.entities

    def relations_of(self, entity_ids: Sequence[str]) -> list[RelationRecord]:
        """Relations touching any of ``entity_ids``, each once, in first-seen order."""
        seen = dict.fromkeys(rid for eid in entity_ids for rid in self.adjacency.get(eid, ()))
        return [self.relations[rid] for rid in seen]


def load_graph_index(store: Store, model: str) -> GraphIndex:
    """Read the graph and its vectors for ``model`` (entities/relations without one are still listed)."""
    entities = store.graph.entities()
    relations = store.graph.relations()
    names = {e.id: e.name for e in entities}
    entity_hashes = [content_hash(entity_text(e)) for e in entities]
    relation_hashes = [content_hash(relation_text(r, names)) for r in relations]
    vectors = store.vectors.get(model, entity_hashes + relation_hashes)
    adjacency: dict[str, list[str]] = {}
    for relation in relations:
        adjacency.setdefault(relation.source_id, []).append(relation.id)
        adjacency.setdefault(relation.target_id, []).append(relation.id)
    return GraphIndex(
        entities={e.id: e for e in entities},
        relations={r.id: r for r in relations},
        by_key={e.key: e.id for e in entities},
        adjacency=adjacency,
        entity_vectors=_dense([e.id for e in entities], entity_hashes, vectors),
        relation_vectors=_dense([r.id for r in relations], relation_hashes, vectors),
    )
