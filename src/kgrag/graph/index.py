"""The in-memory graph index that query-time steps search: records by id, key lookup, adjacency and
vector matrices.

:func:`load_graph_index` reads the graph and its vectors from the store; query-time code keeps the
result in a :class:`kgrag.core.hot.HotValue`, reloaded only when the store's write generation changes, as
the dense chunk index is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from kgrag.core.dense_index import DenseIndex
from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.core.vector_index import AUTO, AnnParams, VectorIndex, build_vector_index
from kgrag.documents import content_hash
from kgrag.graph.texts import entity_text, relation_text
from kgrag.store.base import Store


def _dense(ids: list[str], hashes: list[str], vectors: dict[str, np.ndarray], ann: AnnParams | None) -> VectorIndex:
    """Exact unless ``store.vector_index = "hnsw"``: this index is rebuilt in every process after every
    graph change and, unlike the chunk index, not saved, so ``auto`` would put an HNSW build of minutes
    (10⁵ entities) in front of a CLI query that exact search answers in a fraction of a second."""
    if ann is not None and ann.index == AUTO:
        ann = replace(ann, index="exact")
    kept = [(i, vectors[h]) for i, h in zip(ids, hashes, strict=True) if h in vectors]
    if not kept:
        return DenseIndex([], np.zeros((0, 0), dtype=np.float32))
    return build_vector_index([i for i, _ in kept], np.stack([v for _, v in kept]), ann)


def _stored(index: VectorIndex, item_id: str) -> tuple[bool, np.ndarray | None]:
    """What an exact index holds for ``item_id``; an approximate one keeps no vectors to answer with."""
    return (True, index.vector(item_id)) if isinstance(index, DenseIndex) else (False, None)


@dataclass
class GraphIndex:
    """The whole graph in memory: records by id, key lookup, adjacency and vector indexes."""

    entities: dict[str, EntityRecord]
    relations: dict[str, RelationRecord]
    by_key: dict[str, str]
    adjacency: dict[str, list[str]] = field(default_factory=dict)
    entity_vectors: VectorIndex = field(default_factory=lambda: DenseIndex([], np.zeros((0, 0))))
    relation_vectors: VectorIndex = field(default_factory=lambda: DenseIndex([], np.zeros((0, 0))))
    _texts: dict[tuple[str, str], str] = field(default_factory=dict, repr=False, compare=False)
    """(kind, id) → :meth:`fact_text`, filled as facts are met."""

    @property
    def empty(self) -> bool:
        return not self.entities

    @cached_property
    def heaviest_relation(self) -> float:
        """The largest relation weight (1 when there is none or all are 0): the scale of path scores, found
        once per index instead of once per query (it scans every relation)."""
        return max((r.weight for r in self.relations.values()), default=1.0) or 1.0

    def fact_text(self, kind: str, item_id: str) -> str | None:
        """The embedded text of an entity or relation (:mod:`kgrag.graph.texts`), None for another kind or
        an unknown id; remembered once made (the context budget asks for the same facts' texts on every
        query that meets them; a race makes one twice, harmlessly)."""
        key = (kind, item_id)
        text = self._texts.get(key)
        if text is None:
            if kind == "entity" and (entity := self.entities.get(item_id)) is not None:
                text = entity_text(entity)
            elif kind == "relation" and (relation := self.relations.get(item_id)) is not None:
                ends = (relation.source_id, relation.target_id)
                text = relation_text(relation, {e: self.entities[e].name for e in ends if e in self.entities})
            else:
                return None
            self._texts[key] = text
        return text

    def fact_vector(self, kind: str, item_id: str, text: str) -> tuple[bool, np.ndarray | None]:
        """The stored vector of an entity or relation whose context text is ``text``, as the load found it:
        ``(True, vector)``, or ``(True, None)`` when the store had none for that text. ``(False, None)`` when
        this index cannot say (another kind, another text, an approximate index keeping no vectors): the
        caller then asks the store by the text's hash, which is what this answer equals."""
        if self.fact_text(kind, item_id) == text:
            return _stored(self.entity_vectors if kind == "entity" else self.relation_vectors, item_id)
        return False, None

    def relations_of(self, entity_ids: Sequence[str]) -> list[RelationRecord]:
        """Relations touching any of ``entity_ids``, each once, in first-seen order."""
        seen = dict.fromkeys(rid for eid in entity_ids for rid in self.adjacency.get(eid, ()))
        return [self.relations[rid] for rid in seen]


def load_graph_index(store: Store, model: str, ann: AnnParams | None = None) -> GraphIndex:
    """Read the graph and its vectors for ``model`` (entities/relations without one are still listed);
    ``ann`` chooses their vector index (exact when not given). Query-time code reads it through
    :class:`kgrag.graph.snapshot.GraphSnapshot`, which shares this one read with its other forms."""
    return build_graph_index(store, store.graph.entities(), store.graph.relations(), model, ann)


def build_graph_index(
    store: Store,
    entities: Sequence[EntityRecord],
    relations: Sequence[RelationRecord],
    model: str,
    ann: AnnParams | None = None,
) -> GraphIndex:
    """The index of records already read from ``store``; only their vectors are read here."""
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
        entity_vectors=_dense([e.id for e in entities], entity_hashes, vectors, ann),
        relation_vectors=_dense([r.id for r in relations], relation_hashes, vectors, ann),
    )
