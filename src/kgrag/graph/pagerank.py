"""Everything PageRank at query time: the solver, the graphs it walks and the scoring back to passages.

* :class:`OneThreadPageRank`: personalized PageRank with igraph's PRPACK on one OpenMP thread;
* :class:`SparsePageRank`: the same PageRank as one sparse linear solve over a factorisation kept per
  damping factor (``ppr``'s walk: the entity graph is large and each question walks it once);
* :class:`IGraphView`: the entity graph as igraph, its vertex numbering and global PageRank (node
  importance for ``paths``), walked by ``ppr``;
* :class:`VertexPassages`: a vertex's PageRank scored back to the passages its entity cites (``ppr``);
* :class:`PassageGraph`: the entity graph with a vertex per passage (hipporag2), walked by ``ppr-passages``.

Each is built at most once per graph version by :class:`kgrag.graph.snapshot.GraphSnapshot`; the steps
that use them are in :mod:`kgrag.retrieval.steps.ppr` (and ``paths``).

igraph runs PRPACK with OpenMP threads: on a busy machine the calling thread waits for its worker at every
barrier, which costs several times the CPU and wall time of one thread (docs/results/design-measurements.md),
and its parallel sums make two identical calls differ in the last digits. :class:`OneThreadPageRank` keeps
igraph as the solver and limits OpenMP to one thread around each call with threadpoolctl (the limit is the
calling thread's OpenMP setting, restored after the call, and costs a small fraction of the call).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kgrag.core.graph_records import EntityRecord

if TYPE_CHECKING:
    import igraph as ig

CONTEXT_EDGE_WEIGHT = 1.0
"""Weight of an entity–passage edge of the :class:`PassageGraph`. Relation edges weigh their mention count
(1 for most), so an entity's walkers split between its passages and its related entities about by how
often each was seen."""


class OneThreadPageRank:
    """Personalized PageRank over one igraph graph (edge attribute ``weight`` when it has edges), each call
    on a single OpenMP thread; deterministic and free of thread barriers on a busy machine."""

    def __init__(self, graph: ig.Graph) -> None:
        from threadpoolctl import ThreadpoolController  # found once per graph view: the lookup is not free

        self.graph = graph
        self.weights = "weight" if graph.ecount() else None
        self._openmp: Any = ThreadpoolController().select(user_api="openmp")

    def personalized(self, reset: Sequence[float] | np.ndarray, damping: float) -> np.ndarray:
        """The stationary distribution (sums to 1) for the non-negative ``reset`` weights."""
        with self._openmp.limit(limits=1):
            ranks = self.graph.personalized_pagerank(damping=damping, reset=list(reset), weights=self.weights)
        return np.asarray(ranks, dtype=np.float64)


class SparsePageRank:
    """Personalized PageRank of an undirected weighted graph (edge attribute ``weight``) as one sparse
    linear solve per call; the same stationary distribution as igraph's, whose PRPACK rebuilds its own
    copy of the graph and iterates over all of it on every call.

    With ``S`` the vertices' weighted degrees, ``W`` the weighted adjacency (parallel edges add up, a
    self-loop counts twice, as igraph counts them) and ``r`` the reset weights (where a walker also
    restarts from a vertex without edges, as in igraph), PageRank is proportional to ``x`` with
    ``x = r`` on the vertices without edges and ``x = S·y`` on the others, where ``(S − d·W)·y = r``.
    That matrix is symmetric and diagonally dominant for a damping ``d`` below 1, so it is factorised
    once per damping (SuperLU with a minimum-degree ordering of the symmetric pattern, no pivoting) and
    each call is a forward and a back substitution. Components the reset does not touch stay exactly 0,
    as in igraph; elsewhere the two agree to PRPACK's tolerance (1e-10). The factorisations are kept by
    the graph's owner (one per graph version), built once under a lock."""

    def __init__(self, graph: ig.Graph) -> None:
        import scipy.sparse as sp

        n = graph.vcount()
        edges = np.asarray(graph.get_edgelist(), dtype=np.int64).reshape(-1, 2)
        weights = np.asarray(graph.es["weight"] if graph.ecount() else [], dtype=np.float64)
        ends = (np.concatenate([edges[:, 0], edges[:, 1]]), np.concatenate([edges[:, 1], edges[:, 0]]))
        adjacency = sp.csc_matrix((np.concatenate([weights, weights]), ends), shape=(n, n))
        strength = np.asarray(adjacency.sum(axis=0)).ravel()
        self.n = n
        self._linked = np.flatnonzero(strength > 0)
        self._strength = strength[self._linked]
        self._adjacency = adjacency[self._linked][:, self._linked]
        self._factors: dict[float, Any] = {}
        self._lock = threading.Lock()

    def _factor(self, damping: float) -> Any:
        factor = self._factors.get(damping)
        if factor is None:
            import scipy.sparse as sp
            from scipy.sparse.linalg import splu

            with self._lock:
                factor = self._factors.get(damping)
                if factor is None:
                    system = (sp.diags(self._strength) - damping * self._adjacency).tocsc()
                    options = {"SymmetricMode": True}
                    factor = splu(system, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options=options)
                    self._factors[damping] = factor
        return factor

    def personalized(self, reset: Sequence[float] | np.ndarray, damping: float) -> np.ndarray:
        """The stationary distribution (sums to 1) for the non-negative ``reset`` weights (not all 0) and
        ``0 < damping < 1``."""
        ranks = np.array(reset, dtype=np.float64)
        if len(self._linked):
            ranks[self._linked] = self._strength * self._factor(damping).solve(ranks[self._linked])
        return ranks / ranks.sum()


def top_order(values: np.ndarray, limit: int) -> np.ndarray:
    """``np.argsort(-values, kind="stable")[:limit]`` (largest first, ties in index order) without sorting
    every value: only those at least as large as the ``limit``-th largest are sorted."""
    if len(values) <= limit:
        return np.argsort(-values, kind="stable")
    threshold = np.partition(values, len(values) - limit)[len(values) - limit]
    candidates = np.flatnonzero(values >= threshold)
    return candidates[np.argsort(-values[candidates], kind="stable")][:limit]


@dataclass(frozen=True)
class VertexPassages:
    """The passages each vertex's entity cites, as arrays, to score PageRank back to passages without a
    Python step per citation: vertex ``v`` cites ``chunk_ids[columns[starts[v]:starts[v + 1]]]``, in its
    own order."""

    chunk_ids: list[str]
    starts: np.ndarray
    columns: np.ndarray

    @classmethod
    def build(cls, per_vertex: Sequence[Sequence[str]]) -> VertexPassages:
        names: dict[str, int] = {}
        columns = [names.setdefault(chunk_id, len(names)) for chunks in per_vertex for chunk_id in chunks]
        starts = np.zeros(len(per_vertex) + 1, dtype=np.int64)
        np.cumsum([len(chunks) for chunks in per_vertex], out=starts[1:])
        return cls(list(names), starts, np.asarray(columns, dtype=np.int64))

    def scores(self, vertices: np.ndarray, weights: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """The ``limit`` passages with the largest sum, over the ``vertices`` citing them, of the vertex's
        weight divided by its number of citations; ties in order of first citation (``vertices`` in the
        given order). The sums add in that same order, as a loop over the vertices would."""
        sizes = self.starts[vertices + 1] - self.starts[vertices]
        cited = sizes > 0
        vertices, sizes, weights = vertices[cited], sizes[cited], weights[cited]
        if not len(vertices):
            return []
        firsts = np.repeat(self.starts[vertices], sizes)  # each citation's vertex's first column, then its place
        places = np.arange(len(firsts)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        columns = self.columns[firsts + places]
        # bincount adds each weight in turn, in citation order, as a loop over the vertices would
        totals = np.bincount(columns, weights=np.repeat(weights / sizes, sizes), minlength=len(self.chunk_ids))
        first = np.full(len(self.chunk_ids), len(columns))
        np.minimum.at(first, columns, np.arange(len(columns)))  # each passage's first citation
        touched = np.flatnonzero(first < len(columns))
        best = touched[np.lexsort((first[touched], -totals[touched]))][:limit]
        return [(self.chunk_ids[c], float(totals[c])) for c in best]


SPARSE_SOLVE_MAX_EDGES = 20_000
"""Entity graphs with at most this many edges are walked by :class:`SparsePageRank`; larger ones by
igraph (:class:`OneThreadPageRank`). The factorisation's fill grows much faster than the graph where hubs
are many, and it is built once per graph version while the first query waits: this size keeps the build
short and small on random and preferential-attachment graphs (measured in docs/results/performance.md).
Both give the same distribution to PRPACK's tolerance."""


def personalized_walk(graph: ig.Graph) -> SparsePageRank | OneThreadPageRank:
    """The personalized-PageRank solver for ``graph``: the sparse solve up to :data:`SPARSE_SOLVE_MAX_EDGES`
    edges, igraph beyond."""
    return SparsePageRank(graph) if graph.ecount() <= SPARSE_SOLVE_MAX_EDGES else OneThreadPageRank(graph)


class IGraphView:
    """An igraph graph of the entity graph, the entity id of each vertex and the vertex of each id, the
    global PageRank (node importance for path scoring, normalised by the largest) and its personalized
    PageRank (:func:`personalized_walk`)."""

    def __init__(self, graph: ig.Graph, ids: list[str]) -> None:
        self.graph = graph
        self.ids = ids
        self.vertex = {entity_id: v for v, entity_id in enumerate(ids)}
        weights = "weight" if graph.ecount() else None
        ranks = graph.pagerank(weights=weights) if graph.vcount() else []
        top = max(ranks, default=0.0) or 1.0
        self.importance = {entity_id: ranks[v] / top for v, entity_id in enumerate(ids)}
        self.walk = personalized_walk(graph)

    def vertex_passages(self, entities: Mapping[str, EntityRecord]) -> VertexPassages:
        """The passages each vertex's entity cites."""
        return VertexPassages.build([e.chunk_ids if (e := entities.get(i)) else () for i in self.ids])


@dataclass(frozen=True)
class PassageGraph:
    """The entity graph with one vertex per passage added (hipporag2): entity vertices
    ``0 .. n_entities - 1`` (as in the :class:`IGraphView`), then one vertex per passage, each linked to
    every entity extracted from it (the provenance table), so PageRank mass flows entity → passage →
    entity and a passage is ranked by the mass it holds."""

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

    @classmethod
    def build(cls, view: IGraphView, entities: Mapping[str, EntityRecord]) -> PassageGraph:
        """``view``'s relation edges (with their weights) plus a context edge from each entity to each
        passage it was extracted from. Passages that no entity mentions have no vertex: only their seed
        score can rank them (see :mod:`kgrag.retrieval.steps.ppr`)."""
        import igraph as ig

        n = view.graph.vcount()
        passage_ids = sorted({c for e in entities.values() if e.id in view.vertex for c in e.chunk_ids})
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
        return cls(graph, n, passage_ids, passage_vertex, view.vertex, OneThreadPageRank(graph))
