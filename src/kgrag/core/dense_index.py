"""Exact cosine search over a normalised float32 matrix kept in memory.

Below ``store.ann_threshold`` vectors an exact matrix product is a few milliseconds and has perfect
recall, so it is what :func:`kgrag.core.vector_index.build_vector_index` picks there (and always with
``store.vector_index = "exact"``); above it the ``hnsw`` index takes over. The SQLite vector repository
keeps one index per model in a :class:`kgrag.core.hot.HotValue`, reloaded only when the store's write
generation changes.

Components of magnitude below :data:`NEGLIGIBLE` are held as zeros. Some models leave a dimension dead
(MiniLM's outputs hold two components near 1e-32 in every vector): each product of two such components
underflows, and an underflowing multiply takes the processor's slow path, which made an exact search
over MiniLM entity vectors markedly slower than over the same matrix with those components zeroed
(docs/results/performance.md). A cosine of unit vectors cannot tell the difference: a term of 1e-30 is
far below the last bit of any sum it is added to, so the scores are the same to the last bit.
"""

from __future__ import annotations

import numpy as np

from kgrag.core.records import ScoredId
from kgrag.core.vector_index import AnnParams

NEGLIGIBLE = 1e-30
"""Components smaller than this in magnitude are held as 0 (module docstring)."""


def without_negligible(matrix: np.ndarray) -> np.ndarray:
    """``matrix`` as contiguous float32 with components below :data:`NEGLIGIBLE` set to 0; a copy when any
    is (the caller's array is never changed), else the array itself."""
    held = np.ascontiguousarray(matrix, dtype=np.float32)
    negligible = np.abs(held) < NEGLIGIBLE
    np.logical_and(negligible, held != 0, out=negligible)
    if not negligible.any():
        return held
    held = held.copy() if np.shares_memory(held, matrix) else held
    held[negligible] = 0.0
    return held


class DenseIndex:
    """Ids plus an (n, d) matrix of unit vectors; ``search`` returns the top cosine matches."""

    def __init__(self, ids: list[str], matrix: np.ndarray) -> None:
        self.ids = ids
        self.matrix = without_negligible(matrix)
        self._rows: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def vector(self, item_id: str) -> np.ndarray | None:
        """The stored vector of ``item_id`` (None if it has none); the id-to-row map is built on first use."""
        if self._rows is None:
            self._rows = {item_id: row for row, item_id in enumerate(self.ids)}  # a race builds it twice: harmless
        row = self._rows.get(item_id)
        return None if row is None else self.matrix[row]

    def search(self, query_vector: np.ndarray, limit: int) -> list[ScoredId]:
        if not self.ids or limit <= 0:
            return []
        # einsum, not ``@``: a matrix-vector product goes to BLAS, whose worker threads wait for a core on a
        # busy machine (an order of magnitude slower there: docs/results/design-measurements.md; same top
        # results). One query's search is too small to gain from threads anyway.
        scores = np.einsum("ij,j->i", self.matrix, np.asarray(query_vector, dtype=np.float32).reshape(-1))
        return self._top(scores, limit)

    def search_many(self, query_vectors: np.ndarray, limit: int) -> list[list[ScoredId]]:
        """``search`` of each row of ``query_vectors``, reading the matrix once for all of them (qe and
        combined search 3-4 queries per question); each score is the same sum as ``search`` computes
        (einsum's inner loop over a row either way: ``tests/core/test_dense_index.py``)."""
        queries = np.asarray(query_vectors, dtype=np.float32).reshape(len(query_vectors), -1)
        if not self.ids or limit <= 0:
            return [[] for _ in range(len(queries))]
        return [self._top(row, limit) for row in np.einsum("ij,kj->ki", self.matrix, queries)]

    def _top(self, scores: np.ndarray, limit: int) -> list[ScoredId]:
        limit = min(limit, len(self.ids))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        ids = self.ids  # positional arguments and one bulk float conversion: 50 hits per search add up
        return [ScoredId(ids[i], s) for i, s in zip(top.tolist(), scores[top].tolist(), strict=True)]


def exact_index(ids: list[str], matrix: np.ndarray, params: AnnParams) -> DenseIndex:
    """The ``exact`` entry of the ``vector_index`` registry (``params`` are for approximate indexes)."""
    return DenseIndex(ids, matrix)
