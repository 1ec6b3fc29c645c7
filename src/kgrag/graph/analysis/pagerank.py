"""Personalized PageRank by power iteration over a sparse transition matrix built once per graph.

igraph's PRPACK solver (what the ``ppr`` pipeline called per query) runs OpenMP threads: on a busy
2-core machine the calling thread waits for its worker at every barrier, so one Medical query took
~8 ms CPU and ~40 ms wall (1.5 ms with one thread), and its parallel sums made two identical calls
differ in the last digits. Power iteration with SciPy is single-threaded and deterministic, with igraph's
semantics for an undirected weighted graph: the walk follows an edge with probability proportional to its
weight, restarts with probability ``1 - damping`` at a vertex drawn from the reset distribution, and a
vertex without edges restarts the same way (igraph's rule for sinks). After k steps the L1 error is at
most 2·damping^k; stopping below :data:`TOLERANCE` agrees with igraph within ~1e-12
(``tests/graph/test_pagerank.py``). Vertices the walk cannot reach score exactly 0, as in igraph.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

TOLERANCE = 1e-13


class PageRankWalk:
    """The random walk of one undirected graph: ``walk @ x`` moves mass along the edges (column ``v`` is
    vertex ``v``'s out-distribution), ``sink`` marks the vertices without edges."""

    def __init__(self, n: int, edges: Sequence[tuple[int, int]], weights: Sequence[float] | None = None) -> None:
        pairs = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        weight = np.ones(len(pairs)) if weights is None else np.asarray(weights, dtype=np.float64)
        rows = np.concatenate([pairs[:, 0], pairs[:, 1]])  # both directions; a self-loop so counts twice,
        cols = np.concatenate([pairs[:, 1], pairs[:, 0]])  # as in igraph (and parallel edges add up)
        adjacency = sp.csr_matrix((np.concatenate([weight, weight]), (rows, cols)), shape=(n, n))
        strength = np.asarray(adjacency.sum(axis=0)).ravel()  # symmetric: column sums = row sums
        self.sink = (strength == 0).astype(np.float64)
        scale = np.divide(1.0, strength, out=np.zeros(n), where=strength > 0)
        self.walk = sp.csr_matrix(adjacency @ sp.diags(scale))

    def personalized(self, reset: np.ndarray, damping: float) -> np.ndarray:
        """The stationary distribution (sums to 1) for the non-negative ``reset`` weights."""
        if not 0.0 <= damping < 1.0:
            raise ValueError(f"damping must be in [0, 1), got {damping}")
        restart = np.asarray(reset, dtype=np.float64) / float(np.sum(reset))
        x = restart
        for _ in range(steps(damping)):
            stay = damping * float(self.sink @ x)  # mass on vertices without edges restarts too
            x = damping * (self.walk @ x) + (1.0 - damping + stay) * restart
        return x


def steps(damping: float) -> int:
    """Iterations that bring the L1 error bound 2·damping^k below :data:`TOLERANCE`."""
    if damping == 0.0:
        return 1
    return max(1, math.ceil(math.log(TOLERANCE / 2) / math.log(damping)))


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
        columns = np.concatenate([self.columns[self.starts[v] : self.starts[v + 1]] for v in vertices.tolist()])
        totals = np.zeros(len(self.chunk_ids))
        np.add.at(totals, columns, np.repeat(weights / sizes, sizes))  # unbuffered: adds in citation order
        touched, first = np.unique(columns, return_index=True)
        best = touched[np.lexsort((first, -totals[touched]))][:limit]
        return [(self.chunk_ids[c], float(totals[c])) for c in best]
