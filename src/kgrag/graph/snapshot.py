"""One read of the stored graph per store generation, and every in-memory form query-time code walks.

Graph pipelines want the same graph in several shapes: records and vectors by id (:class:`GraphIndex`:
entity search, ``graph-local``, LightRAG steps), adjacency as arrays (:class:`~kgrag.graph.arcs.Arcs`:
``paths``), an igraph view with global PageRank (:class:`~kgrag.graph.pagerank.IGraphView`: ``ppr``,
``paths``), the passages each vertex cites (``ppr``) and the passage graph (``ppr-passages``). A
:class:`GraphSnapshot` reads the entities, relations and their vectors from the store once and derives
each shape from those records on first use, exactly once (a lock per shape), so a query pays only for the
shapes its pipeline walks and no shape reads the store again. The query context keeps one snapshot per
store generation (:mod:`kgrag.retrieval.resources`), so a committed write gives the next query a new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.core.lazy import Lazy
from kgrag.core.vector_index import AnnParams
from kgrag.graph.arcs import Arcs
from kgrag.graph.index import GraphIndex, build_graph_index
from kgrag.store.base import Store

if TYPE_CHECKING:  # igraph (and its matplotlib drawing) loads only when a pipeline walks the graph
    from kgrag.graph.pagerank import IGraphView, PassageGraph, VertexPassages


class GraphSnapshot:
    """The graph of one store generation: its records (read once) and the forms derived from them."""

    def __init__(self, entities: Sequence[EntityRecord], relations: Sequence[RelationRecord], index: GraphIndex):
        self.entities = entities
        """Every entity, in storage order (the igraph view's vertex order)."""
        self.relations = relations
        """Every relation, in storage order (the igraph view's edge order)."""
        self.index = index
        self._arcs: Lazy[Arcs] = Lazy(lambda: Arcs.build(index))
        self._igraph: Lazy[IGraphView] = Lazy(self._build_igraph)
        self._vertex_passages: Lazy[VertexPassages] = Lazy(lambda: self.igraph.vertex_passages(index.entities))
        self._passage_graph: Lazy[PassageGraph] = Lazy(self._build_passage_graph)

    @classmethod
    def load(cls, store: Store, model: str, ann: AnnParams | None = None) -> GraphSnapshot:
        """Read the graph (entities, relations, then their vectors for ``model``) from ``store`` once."""
        entities = store.graph.entities()
        relations = store.graph.relations()
        return cls(entities, relations, build_graph_index(store, entities, relations, model, ann))

    @property
    def empty(self) -> bool:
        return self.index.empty

    @property
    def arcs(self) -> Arcs:
        """The adjacency as arrays (built on first use)."""
        return self._arcs.get()

    @property
    def igraph(self) -> IGraphView:
        """The entity graph as igraph, with global PageRank and a one-thread personalized PageRank."""
        return self._igraph.get()

    @property
    def vertex_passages(self) -> VertexPassages:
        """The passages each igraph vertex's entity cites (``ppr`` scores PageRank back to passages)."""
        return self._vertex_passages.get()

    @property
    def passage_graph(self) -> PassageGraph:
        """The entity graph with one vertex per passage (``ppr-passages``)."""
        return self._passage_graph.get()

    def _build_igraph(self) -> IGraphView:
        from kgrag.graph.analysis.igraph_view import igraph_of
        from kgrag.graph.pagerank import IGraphView

        return IGraphView(*igraph_of(self.entities, self.relations))

    def _build_passage_graph(self) -> PassageGraph:
        from kgrag.graph.pagerank import PassageGraph

        return PassageGraph.build(self.igraph, self.index.entities)
