"""Exact search of several queries at once gives exactly what one search per query gives (ids, order
and scores to the last bit), so steps may batch their queries."""

from __future__ import annotations

import numpy as np
import pytest

from kgrag.core.dense_index import DenseIndex
from kgrag.core.records import ScoredId
from kgrag.core.vector_index import search_many


def _unit(rows: int, dim: int, seed: int) -> np.ndarray:
    matrix = np.random.default_rng(seed).normal(size=(rows, dim))
    return (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize(("rows", "dim"), [(1265, 384), (300, 64), (7, 3)])
def test_search_many_equals_one_search_per_query(rows: int, dim: int) -> None:
    index = DenseIndex([f"c{i}" for i in range(rows)], _unit(rows, dim, 1))
    for count in (1, 2, 3, 4, 6):
        queries = _unit(count, dim, 2 + count)
        assert index.search_many(queries, 50) == [index.search(q, 50) for q in queries]
    assert index.search_many(_unit(2, dim, 9), 0) == [[], []]


class OneByOne:
    """An index without ``search_many`` (a plug-in): searched once per query."""

    def __init__(self) -> None:
        self.ids = ["a"]
        self.calls = 0

    def __len__(self) -> int:
        return 1

    def search(self, query_vector: np.ndarray, limit: int) -> list[ScoredId]:
        self.calls += 1
        return [ScoredId("a", float(query_vector[0]))]


def test_indexes_without_search_many_are_searched_one_by_one() -> None:
    index = OneByOne()
    assert search_many(index, np.eye(2, dtype=np.float32), 5) == [[ScoredId("a", 1.0)], [ScoredId("a", 0.0)]]
    assert index.calls == 2
