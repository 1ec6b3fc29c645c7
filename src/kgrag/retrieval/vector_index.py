"""Exact cosine search over a normalised float32 matrix kept in memory.

At the sizes kgrag's embedded store targets (up to a few hundred thousand chunks) an exact matrix
product is a few milliseconds and has perfect recall; the matrix is reloaded only when the store's
write generation changes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kgrag.store.records import ScoredId


class DenseIndex:
    """Ids plus an (n, d) matrix of unit vectors; ``search`` returns the top cosine matches."""

    def __init__(self, ids: list[str], matrix: np.ndarray) -> None:
        self.ids = ids
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query_vector: np.ndarray, limit: int) -> list[ScoredId]:
        if not self.ids or limit <= 0:
            return []
        scores = self.matrix @ np.asarray(query_vector, dtype=np.float32).reshape(-1)
        limit = min(limit, len(self.ids))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [ScoredId(id=self.ids[i], score=float(scores[i])) for i in top]


class HotDenseIndex:
    """Keeps a :class:`DenseIndex` loaded and reloads it when the store changed underneath."""

    def __init__(self, load: Callable[[], tuple[list[str], np.ndarray]], generation: Callable[[], int]) -> None:
        self._load = load
        self._generation = generation
        self._index: DenseIndex | None = None
        self._loaded_at: int | None = None

    def get(self) -> DenseIndex:
        current = self._generation()
        if self._index is None or current != self._loaded_at:
            ids, matrix = self._load()
            self._index = DenseIndex(ids, matrix)
            self._loaded_at = current
        return self._index
