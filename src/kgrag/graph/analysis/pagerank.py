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
