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


def test_negligible_components_are_held_as_zeros_with_the_same_scores() -> None:
    """A dead dimension (MiniLM leaves components near 1e-32) is zeroed in the index, not in the caller's
    array, and every score stays the same to the last bit."""
    matrix = _unit(500, 384, 3)
    matrix[:, [7, 100]] = np.float32(1e-32) * np.sign(np.random.default_rng(4).normal(size=(500, 2)))
    query = _unit(1, 384, 5)[0]
    query[[7, 100]] = np.float32(-3e-33)
    original = matrix.copy()
    index = DenseIndex([f"c{i}" for i in range(500)], matrix)
    assert np.array_equal(matrix, original)
    assert not index.matrix[:, [7, 100]].any()
    assert np.array_equal(index.matrix[:, :7], matrix[:, :7])
    full = np.einsum("ij,j->i", matrix, query)
    hits = index.search(query, 500)
    order = np.argsort(-full, kind="stable")
    assert [(hit.id, hit.score) for hit in hits] == [(f"c{i}", float(full[i])) for i in order]
