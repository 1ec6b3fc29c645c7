"""The stored graph as an igraph ``Graph``: one place that turns entities/relations into vertices/edges.

Statistics, plots, communities and path search all want the same in-memory view, so they share this
builder instead of each walking the store their own way.
"""

from __future__ import annotations

from collections.abc import Sequence

import igraph as ig

from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.store.base import Store


def to_igraph(store: Store, *, by_id: bool = False) -> tuple[ig.Graph, list[str]]:
    """Build an undirected igraph graph of the whole stored graph.

    Returns the graph and ``ids`` with ``ids[v]`` the entity id of vertex ``v``. Vertex attributes:
    ``name`` (entity id, so ``g.vs.find(name=entity_id)`` works), ``label`` (display name), ``key``,
    ``type``. Edge attributes: ``relation_id``, ``label``, ``weight``. Relations whose endpoint is not
    a stored entity are skipped (they cannot be drawn), which a consistent store never has.

    ``by_id``: vertices and edges in id order rather than storage order, for algorithms whose result depends
    on the order (Leiden's communities): the same graph then gives the same result however it was built,
    a run that recovered from faults included.
    """
    return igraph_of(store.graph.entities(), store.graph.relations(), by_id=by_id)


def igraph_of(
    entities: Sequence[EntityRecord], relations: Sequence[RelationRecord], *, by_id: bool = False
) -> tuple[ig.Graph, list[str]]:
    """:func:`to_igraph` of records already read (the query-time graph snapshot reads the store once for
    every form it holds)."""
    if by_id:
        entities = sorted(entities, key=lambda entity: entity.id)
    ids = [entity.id for entity in entities]
    index = {entity_id: position for position, entity_id in enumerate(ids)}
    edges: list[tuple[int, int]] = []
    relation_ids: list[str] = []
    labels: list[str] = []
    weights: list[float] = []
    for relation in sorted(relations, key=lambda relation: relation.id) if by_id else relations:
        source, target = index.get(relation.source_id), index.get(relation.target_id)
        if source is None or target is None:
            continue
        edges.append((source, target))
        relation_ids.append(relation.id)
        labels.append(relation.label)
        weights.append(relation.weight)
    graph = ig.Graph(n=len(ids), edges=edges, directed=False)
    graph.vs["name"] = ids
    graph.vs["label"] = [entity.name for entity in entities]
    graph.vs["key"] = [entity.key for entity in entities]
    graph.vs["type"] = [entity.type for entity in entities]
    graph.es["relation_id"] = relation_ids
    graph.es["label"] = labels
    graph.es["weight"] = weights
    return graph, ids
