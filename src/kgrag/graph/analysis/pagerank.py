"""Personalized PageRank with igraph's PRPACK on one OpenMP thread, and PageRank scored back to passages.

igraph runs PRPACK with OpenMP threads: on a busy machine the calling thread waits for its worker at every
barrier, so a query costs several times the CPU and wall time of one thread (docs/results/design-measurements.md),
and its parallel sums make two identical calls differ in the last digits. :class:`OneThreadPageRank`
keeps igraph as the solver and limits OpenMP to one thread around each call with threadpoolctl (the limit
is the calling thread's OpenMP setting, restored after the call: ~11 µs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import igraph as ig


class OneThreadPageRank:
    """Personalized PageRank over one igraph graph (edge attribute ``weight`` when it has edges), each call
    on a single OpenMP thread; deterministic and free of thread barriers on a busy machine."""

    def __init__(self, graph: ig.Graph) -> None:
        from threadpoolctl import ThreadpoolController  # found once per graph view (~4 ms)

        self.graph = graph
        self.weights = "weight" if graph.ecount() else None
        self._openmp: Any = ThreadpoolController().select(user_api="openmp")

    def personalized(self, reset: Sequence[float] | np.ndarray, damping: float) -> np.ndarray:
        """The stationary distribution (sums to 1) for the non-negative ``reset`` weights."""
        with self._openmp.limit(limits=1):
            ranks = self.graph.personalized_pagerank(damping=damping, reset=list(reset), weights=self.weights)
        return np.asarray(ranks, dtype=np.float64)


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
