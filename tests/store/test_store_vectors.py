"""Store contract, vector search: exact cosine top-k over the chunk vectors of one model, the same
ranking and scores as the NumPy reference, and fresh after every write."""

from __future__ import annotations

import itertools
import threading

import numpy as np
from tests.helpers import add_document

from kgrag.core.dense_index import DenseIndex
from kgrag.core.records import ScoredId
from kgrag.documents.records import content_hash
from kgrag.store import Store


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _fill(store: Store, texts: list[str], matrix: np.ndarray, model: str = "m") -> list[str]:
    ids = add_document(store, "d1", texts)
    store.vectors.put(model, [(content_hash(t), v) for t, v in zip(texts, matrix, strict=True)])
    return ids


def test_search_matches_the_exact_reference(store: Store) -> None:
    rng = np.random.default_rng(3)
    texts = [f"text {i}" for i in range(40)]
    matrix = _unit(rng.normal(size=(40, 16)))
    ids = _fill(store, texts, matrix)
    query = _unit(rng.normal(size=(1, 16)))[0]
    reference = DenseIndex(ids, matrix).search(query, 7)
    hits = store.vectors.search("m", query, 7)
    assert [h.id for h in hits] == [h.id for h in reference]
    assert np.allclose([h.score for h in hits], [h.score for h in reference], atol=1e-6)
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))


def test_search_edges(store: Store) -> None:
    assert store.vectors.search("m", np.ones(4, dtype=np.float32), 5) == []  # nothing stored
    ids = _fill(store, ["a", "b"], _unit(np.array([[1.0, 0.0], [0.0, 1.0]])))
    assert store.vectors.search("m", np.array([1.0, 0.0], dtype=np.float32), 0) == []
    hits = store.vectors.search("m", np.array([1.0, 0.0], dtype=np.float32), 10)  # k beyond the count
    assert [h.id for h in hits] == ids and hits[0] == ScoredId(ids[0], 1.0)
    assert store.vectors.search("other-model", np.array([1.0, 0.0], dtype=np.float32), 5) == []


def test_search_sees_writes_and_deletes(store: Store) -> None:
    query = np.array([1.0, 0.0], dtype=np.float32)
    (first,) = _fill(store, ["a"], _unit(np.array([[0.0, 1.0]])))
    assert [h.id for h in store.vectors.search("m", query, 5)] == [first]
    second = add_document(store, "d2", ["b"])[0]
    store.vectors.put("m", [(content_hash("b"), np.array([1.0, 0.0], dtype=np.float32))])
    assert [h.id for h in store.vectors.search("m", query, 5)] == [second, first]
    store.documents.delete("d2")
    assert [h.id for h in store.vectors.search("m", query, 5)] == [first]


def test_search_from_many_threads(store: Store) -> None:
    rng = np.random.default_rng(5)
    matrix = _unit(rng.normal(size=(30, 8)))
    ids = _fill(store, [f"t{i}" for i in range(30)], matrix)
    expected = DenseIndex(ids, matrix).search(matrix[0], 5)
    results: list[list[str]] = []

    def search() -> None:
        results.append([h.id for h in store.vectors.search("m", matrix[0], 5)])

    threads = [threading.Thread(target=search) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [[h.id for h in expected]] * 8


def test_chunk_vectors_by_id_are_the_stored_ones(store: Store) -> None:
    """Passage cosines read chunk vectors by id (SQLite: rows of the hot matrix); the numbers are the
    ones stored under the chunk's text hash."""
    rng = np.random.default_rng(7)
    texts = [f"text {i}" for i in range(6)]
    matrix = _unit(rng.normal(size=(6, 8)))
    ids = _fill(store, texts, matrix)
    add_document(store, "d2", ["no vector"])
    store.vectors.search("m", matrix[0], 3)  # the hot index is loaded, as after a dense search
    found = store.vectors.chunk_vectors("m", [ids[4], "unknown", ids[1], "d2-c0", ids[4]])
    assert sorted(found) == sorted([ids[1], ids[4]])
    stored = store.vectors.get("m", [content_hash(texts[1]), content_hash(texts[4])])
    assert np.array_equal(found[ids[1]], stored[content_hash(texts[1])])
    assert np.array_equal(found[ids[4]], stored[content_hash(texts[4])])
    assert store.vectors.chunk_vectors("other-model", ids) == {}


def test_models_hashes_and_delete(store: Store) -> None:
    """What `kgrag prune` uses: the models with vectors, one model's hashes, deleting some or all of them."""
    _fill(store, ["a", "b", "c"], _unit(np.eye(3)))
    store.vectors.put("old", [(content_hash("a"), np.ones(2, dtype=np.float32))])
    assert store.vectors.models() == {"m": 3, "old": 1}
    assert sorted(store.vectors.hashes("m")) == sorted(content_hash(t) for t in "abc")
    assert store.vectors.delete("m", [content_hash("b"), "no-such-hash"]) == 1
    assert sorted(store.vectors.hashes("m")) == sorted(content_hash(t) for t in "ac")
    assert store.vectors.delete("old") == 1 and store.vectors.models() == {"m": 2}
    assert store.vectors.delete("m", []) == 0
    hits = store.vectors.search("m", np.array([0.0, 1.0, 0.0], dtype=np.float32), 5)
    assert [h.score for h in hits] == [0.0, 0.0]  # b's chunk has no vector any more: it is not searched


def test_compact_keeps_every_row(store: Store) -> None:
    ids = _fill(store, ["a", "b"], _unit(np.eye(2)))
    store.vectors.delete("m", [content_hash("a")])
    assert store.compact() is True
    assert store.vectors.models() == {"m": 1}
    assert [h.id for h in store.vectors.search("m", np.array([0.0, 1.0], dtype=np.float32), 5)] == [ids[1]]
    with store.transaction():
        assert store.compact() is False  # never inside a transaction
