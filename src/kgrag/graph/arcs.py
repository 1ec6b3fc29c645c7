"""The graph index's adjacency as arrays, for walks that extend many paths at once (``paths``).

Entity ``e`` (its position in ``GraphIndex.entities``) has the arcs ``indptr[e]:indptr[e + 1]``, in
``GraphIndex.adjacency`` order: each is a relation (``relations``, ``weights``) and the entity at its
other end (``ends``; -1 when that end is not an entity of the index, which a walk must skip).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from kgrag.core.graph_records import RelationRecord

if TYPE_CHECKING:
    from kgrag.graph.index import GraphIndex


@dataclass(frozen=True)
class Arcs:
    """See the module docstring."""

    entity_ids: list[str]
    position: dict[str, int]
    indptr: np.ndarray
    ends: np.ndarray
    weights: np.ndarray
    relations: list[RelationRecord]
    _aligned: list[tuple[dict[str, float], np.ndarray]] = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def build(cls, index: GraphIndex) -> Arcs:
        entity_ids = list(index.entities)
        position = {entity_id: n for n, entity_id in enumerate(entity_ids)}
        indptr = [0]
        ends: list[int] = []
        relations: list[RelationRecord] = []
        for entity_id in entity_ids:
            for relation_id in index.adjacency.get(entity_id, ()):
                relation = index.relations[relation_id]
                other = relation.target_id if relation.source_id == entity_id else relation.source_id
                ends.append(position.get(other, -1))
                relations.append(relation)
            indptr.append(len(ends))
        return cls(
            entity_ids=entity_ids,
            position=position,
            indptr=np.asarray(indptr, dtype=np.int64),
            ends=np.asarray(ends, dtype=np.int64),
            weights=np.asarray([r.weight for r in relations], dtype=np.float64),
            relations=relations,
        )

    def aligned(self, values: dict[str, float]) -> np.ndarray:
        """``values`` by entity position (0 where missing); the array for the last dict given is kept, so a
        per-graph dict (the global PageRank importance) is converted once, not per query."""
        held = self._aligned[-1] if self._aligned else None
        if held is None or held[0] is not values:
            held = (values, np.array([values.get(e, 0.0) for e in self.entity_ids], dtype=np.float64))
            self._aligned[:] = [held]
        return held[1]

    def of(self, entities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(owner, arc) for every arc of ``entities``, in their order and each one's arc order: ``owner[i]``
        is the position in ``entities`` whose arc ``arc[i]`` is."""
        starts = self.indptr[entities]
        counts = self.indptr[entities + 1] - starts
        owner = np.repeat(np.arange(len(entities)), counts)
        offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        return owner, np.repeat(starts, counts) + offsets
