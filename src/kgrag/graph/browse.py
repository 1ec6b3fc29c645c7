"""Browsing the graph a person looks at: find entities by name, and the neighbourhood around one.

Both work on the in-memory :class:`~kgrag.graph.index.GraphIndex` that queries already keep hot, so a
web page clicking through entities costs no database round trip. Results are plain dataclasses that
serialise to JSON unchanged (the server and the CLI print the same thing).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.graph.index import GraphIndex


@dataclass(frozen=True)
class EntityView:
    """An entity as a browser shows it: identity, type, description, degree and provenance."""

    id: str
    name: str
    type: str
    description: str
    degree: int
    chunk_ids: list[str]


@dataclass(frozen=True)
class RelationView:
    """An undirected edge between two entities of a neighbourhood."""

    id: str
    source: str
    target: str
    label: str
    description: str
    weight: float


@dataclass
class Neighbourhood:
    """The entities within ``depth`` hops of ``center`` (capped at ``limit``) and the edges among them.

    ``truncated`` tells the reader that the cap cut the neighbourhood, so a small picture is not taken
    for the whole story.
    """

    center: str
    depth: int
    entities: list[EntityView] = field(default_factory=list)
    relations: list[RelationView] = field(default_factory=list)
    truncated: bool = False
    offset: int = 0


def entity_view(index: GraphIndex, entity: EntityRecord) -> EntityView:
    return EntityView(
        id=entity.id,
        name=entity.name,
        type=entity.type,
        description=entity.description,
        degree=len(index.adjacency.get(entity.id, ())),
        chunk_ids=list(entity.chunk_ids),
    )


def _relation_view(relation: RelationRecord) -> RelationView:
    return RelationView(
        relation.id, relation.source_id, relation.target_id, relation.label, relation.description, relation.weight
    )


def search_entities(index: GraphIndex, text: str, limit: int = 20) -> list[EntityView]:
    """Entities whose name contains ``text`` (case-insensitive): exact names first, then prefixes, then
    the rest, each group by degree (hubs first), then name, so the order is stable."""
    needle = text.strip().casefold()
    if not needle:
        return []
    ranked: list[tuple[int, int, str, EntityRecord]] = []
    for entity in index.entities.values():
        name = entity.name.casefold()
        if needle not in name:
            continue
        group = 0 if name == needle else 1 if name.startswith(needle) else 2
        ranked.append((group, -len(index.adjacency.get(entity.id, ())), name, entity))
    ranked.sort(key=lambda row: row[:3])
    return [entity_view(index, row[3]) for row in ranked[:limit]]


def neighbourhood(
    index: GraphIndex, entity_id: str, depth: int = 1, limit: int = 50, offset: int = 0
) -> Neighbourhood | None:
    """Breadth-first from ``entity_id`` up to ``depth`` hops, strongest relations first, at most ``limit``
    entities counting the centre; ``offset`` skips that many neighbours in the same order (the next page
    of a hub: ask again with ``offset`` grown by the neighbours received). Relations among every entity
    ranked up to the page's end come along. None when the entity does not exist."""
    if entity_id not in index.entities:
        return None
    found: dict[str, int] = {entity_id: 0}
    queue: deque[str] = deque([entity_id])
    truncated = False
    cap = limit + offset
    while queue and not truncated:
        current = queue.popleft()
        if found[current] >= depth:
            continue
        edges = sorted((index.relations[r] for r in index.adjacency.get(current, ())), key=lambda r: -r.weight)
        for relation in edges:
            other = relation.target_id if relation.source_id == current else relation.source_id
            if other in found:
                continue
            if len(found) >= cap:
                truncated = True
                break
            found[other] = found[current] + 1
            queue.append(other)
    relations = {rid for eid in found for rid in index.adjacency.get(eid, ())}
    kept = [index.relations[r] for r in sorted(relations)]
    shown = [entity_id, *list(found)[1 + offset :]]
    return Neighbourhood(
        center=entity_id,
        depth=depth,
        entities=[entity_view(index, index.entities[e]) for e in shown],
        relations=[_relation_view(r) for r in kept if r.source_id in found and r.target_id in found],
        truncated=truncated,
        offset=offset,
    )
