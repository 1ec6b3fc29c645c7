"""The entity graph with one node per passage added (hipporag2): what ``ppr-passages`` walks.

HippoRAG 2 puts passages into the PageRank graph itself instead of scoring them afterwards from the
entities they mention: each passage is a node linked to every entity extracted from it (the provenance
table), so PageRank mass flows entity → passage → entity and a passage is ranked by the mass it holds.
Entity vertices keep the order of the query context's :class:`~kgrag.retrieval.query_context.IGraphView`
(the same vertex numbers), passages follow them. Built once per graph version (the query context keeps it
as a hot value), so a query pays only the PageRank solve.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgrag.core.graph_records import EntityRecord

if TYPE_CHECKING:
    import igraph as ig

    from kgrag.graph.analysis.pagerank import OneThreadPageRank
    from kgrag.retrieval.query_context import IGraphView

CONTEXT_EDGE_WEIGHT = 1.0
"""Weight of an entity–passage edge. Relation edges weigh their mention count (1 for most), so an
entity's walkers split between its passages and its related entities about by how often each was seen."""


@dataclass(frozen=True)
class PassageGraph:
    """Entity vertices ``0 .. n_entities - 1`` (as in the igraph view), then one vertex per passage."""

    graph: ig.Graph
    n_entities: int
    passage_ids: list[str]
    """``passage_ids[i]`` is the chunk id of vertex ``n_entities + i``."""
    passage_vertex: dict[str, int]
    entity_vertex: dict[str, int]
    """The vertex of each entity id (the igraph view's)."""
    walk: OneThreadPageRank
    """Personalized PageRank over ``graph`` (igraph, one OpenMP thread)."""

    def passage_of(self, vertex: int) -> str | None:
        """The chunk id of ``vertex``, None for an entity vertex."""
        return self.passage_ids[vertex - self.n_entities] if vertex >= self.n_entities else None


def build_passage_graph(view: IGraphView, entities: Mapping[str, EntityRecord]) -> PassageGraph:
    """``view``'s relation edges (with their weights) plus a context edge from each entity to each passage
    it was extracted from. Passages that no entity mentions have no vertex: only their dense score can
    rank them (see :mod:`kgrag.retrieval.ppr_passages`)."""
    import igraph as ig

    from kgrag.graph.analysis.pagerank import OneThreadPageRank

    n = view.graph.vcount()
    passage_ids = sorted({chunk_id for e in entities.values() if e.id in view.vertex for chunk_id in e.chunk_ids})
    passage_vertex = {chunk_id: n + i for i, chunk_id in enumerate(passage_ids)}
    edges = list(view.graph.get_edgelist())
    weights = list(view.graph.es["weight"]) if view.graph.ecount() else []
    for entity in entities.values():
        v = view.vertex.get(entity.id)
        if v is None:
            continue
        for chunk_id in entity.chunk_ids:
            edges.append((v, passage_vertex[chunk_id]))
            weights.append(CONTEXT_EDGE_WEIGHT)
    graph = ig.Graph(n=n + len(passage_ids), edges=edges, directed=False, edge_attrs={"weight": weights})
    return PassageGraph(graph, n, passage_ids, passage_vertex, view.vertex, OneThreadPageRank(graph))
