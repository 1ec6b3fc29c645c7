"""The workspace's stored graph as an estimate reads it, read once per estimate.

Both measures an estimate takes from a workspace that has already indexed with its model — the stand-in
graph's shares (:func:`kgrag.indexing.estimate_shares.graph_shares`) and the model's own names and
description lengths (:func:`kgrag.indexing.estimate_descriptions.stored_described`) — walk every entity
mention and rebuild the extracted units from the chunk table as extraction groups them. Reading the graph
costs more than either measure, and grows with the graph, so :func:`read_stored_graph` does it once and
both measure the same reading.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgrag.core.graph_records import EntityMention, RelationMention
    from kgrag.store.base import Store

MAX_UNITS = 64  # the stored graph is measured on this many extracted units at most (the first documents')


@dataclass(frozen=True)
class StoredUnit:
    """One extraction unit holding at least one stored entity mention: its text and its chunks."""

    text: str
    chunk_ids: tuple[str, ...]

    @property
    def key(self) -> str:
        """The unit's key, as the LLM ledger links its calls to it."""
        from kgrag.graph.extract.units import unit_key

        return unit_key(self.chunk_ids)


@dataclass(frozen=True)
class StoredGraph:
    """Every stored entity and relation mention by chunk id, and the first extracted units."""

    entities: Mapping[str, Sequence[EntityMention]]
    relations: Mapping[str, Sequence[RelationMention]]
    units: Sequence[StoredUnit]


def read_stored_graph(store: Store, unit_tokens: int, max_units: int = MAX_UNITS) -> StoredGraph | None:
    """The stored graph's mentions and its first ``max_units`` extracted units, units of ``unit_tokens``
    rebuilt from the chunk table as extraction built them (None without a stored entity mention). A unit
    without any entity mention is left out: not extracted yet, or failed."""
    from kgrag.graph.extract.units import build_units
    from kgrag.models.llm.tokens import default_token_counter

    graph = store.graph
    entities: dict[str, list[EntityMention]] = defaultdict(list)
    for mentions in graph.entity_mentions(graph.entity_ids()).values():
        for entity in mentions:
            entities[entity.chunk_id].append(entity)
    if not entities:
        return None
    relations: dict[str, list[RelationMention]] = defaultdict(list)
    for relation_mentions in graph.relation_mentions(graph.relation_ids()).values():
        for relation in relation_mentions:
            relations[relation.chunk_id].append(relation)
    counter = default_token_counter()
    units: list[StoredUnit] = []
    for document in store.documents.list():
        for unit in build_units(store.chunks.for_document(document.id), unit_tokens, counter):
            ids = tuple(chunk.id for chunk in unit.chunks)
            if any(i in entities for i in ids):
                units.append(StoredUnit(unit.text, ids))
                if len(units) >= max_units:
                    return StoredGraph(dict(entities), dict(relations), tuple(units))
    return StoredGraph(dict(entities), dict(relations), tuple(units))
