"""The graph at query time: one :class:`~kgrag.graph.snapshot.GraphSnapshot` per store generation (the
store read once; index, arcs, igraph view and passage graph derived from it) and the entity count
requirement checks read without loading the graph."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgrag.retrieval.query_context import QueryContext, QueryResource

if TYPE_CHECKING:  # the graph code loads when a pipeline first reads the graph, not for a BM25 query
    from kgrag.graph.snapshot import GraphSnapshot


def _snapshot(ctx: QueryContext) -> GraphSnapshot:
    from kgrag.graph.snapshot import GraphSnapshot

    return GraphSnapshot.load(ctx.store, ctx.model_id, ctx.config.store.ann_params())


GRAPH: QueryResource[GraphSnapshot] = QueryResource("graph", _snapshot, per_generation=True)
GRAPH_COUNTS: QueryResource[dict[str, int]] = QueryResource(
    "graph_counts", lambda ctx: ctx.store.graph.counts(), per_generation=True
)
"""Entities, relations, their mentions and the chunks extracted or failed: counted once per generation."""
GRAPH_ENTITIES: QueryResource[int] = QueryResource(
    "graph_entities", lambda ctx: ctx.get(GRAPH_COUNTS)["entities"], per_generation=True
)
