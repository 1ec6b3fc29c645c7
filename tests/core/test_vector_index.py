"""The vector-index choice: HNSW agrees with exact search, ``auto`` switches at the threshold, a missing
faiss falls back to exact with a warning, and the config rejects unknown index names."""

from __future__ import annotations

import logging
import sys

import numpy as np
import pytest
from pydantic import ValidationError

from kgrag.config import KgragConfig
from kgrag.config.store import StoreConfig
from kgrag.core.dense_index import DenseIndex
from kgrag.core.vector_index import AnnParams, build_vector_index, chosen_index

faiss = pytest.importorskip("faiss", reason="faiss-cpu (extra `ann`) is not installed")
HnswIndex = pytest.importorskip("kgrag.core.hnsw_index").HnswIndex

# Recall floor for the default knobs on the seeded set below. bench/bench_ann.py measures 0.99-1.00 at
# these sizes (and 0.94 for the 500k, where the beam is a far smaller share of the data); a
# broken index (wrong metric, ids misaligned) scores near 10/3000 ≈ 0.003, so 0.95 separates the two
# with room for faiss versions and for its multi-threaded build, which can vary the graph slightly.
RECALL_FLOOR = 0.95


def clustered(n: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    """Unit vectors around 30 centres: structured like embeddings, unlike uniform noise."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(30, dim))
    rows = centres[rng.integers(0, 30, n)] + 0.7 * rng.normal(size=(n, dim))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def test_hnsw_recall_at_10_against_exact() -> None:
    data = clustered(3100)
    ids = [f"v{i}" for i in range(3000)]
    exact = build_vector_index(ids, data[:3000], AnnParams(index="exact"))
    ann = build_vector_index(ids, data[:3000], AnnParams(index="hnsw"))
    assert isinstance(exact, DenseIndex) and isinstance(ann, HnswIndex)
    recalls = []
    for query in data[3000:]:  # held out: not in the index
        truth = {h.id for h in exact.search(query, 10)}
        hits = ann.search(query, 10)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        recalls.append(len(truth & {h.id for h in hits}) / 10)
    assert np.mean(recalls) >= RECALL_FLOOR


def test_hnsw_scores_are_cosines_and_k_beyond_size_is_capped() -> None:
    data = clustered(50, dim=8, seed=1)
    ann = build_vector_index([f"v{i}" for i in range(50)], data, AnnParams(index="hnsw"))
    hits = ann.search(data[7], 100)
    assert len(hits) == 50 and hits[0].id == "v7" and hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert ann.search(data[0], 0) == []


def test_auto_switches_at_the_threshold() -> None:
    params = AnnParams(threshold=100)
    assert chosen_index(params, 99) == "exact" and chosen_index(params, 100) == "hnsw"
    assert isinstance(build_vector_index([f"v{i}" for i in range(99)], clustered(99), params), DenseIndex)
    assert isinstance(build_vector_index([f"v{i}" for i in range(100)], clustered(100), params), HnswIndex)
    assert chosen_index(AnnParams(index="exact", threshold=1), 10**7) == "exact"
    assert chosen_index(AnnParams(index="hnsw"), 1) == "hnsw"
    assert isinstance(build_vector_index(["a"], clustered(1)), DenseIndex)  # no params: exact


def test_missing_faiss_falls_back_to_exact_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "faiss", None)  # `import faiss` now raises ImportError
    data = clustered(200)
    with caplog.at_level(logging.WARNING):
        index = build_vector_index([f"v{i}" for i in range(200)], data, AnnParams(index="hnsw"))
    assert isinstance(index, DenseIndex)
    assert index.search(data[3], 1)[0].id == "v3"
    assert "faiss is not installed" in caplog.text and "kgrag[ann]" in caplog.text


def test_config_fields_validate_and_map_to_params() -> None:
    hnsw = {"hnsw": {"m": 16, "ef_search": 200}}
    cfg = StoreConfig(vector_index="hnsw", ann_threshold=10, vector_indexes=hnsw, ann_persist=False)
    assert cfg.ann_params() == AnnParams(index="hnsw", threshold=10, m=16, ef_search=200, persist=False)
    assert StoreConfig().ann_params() == AnnParams()  # config defaults are the core defaults
    with pytest.raises(ValidationError, match=r"store\.vector_index"):
        StoreConfig(vector_index="annoy")
    for bad in (
        {"ann_threshold": 0},
        {"vector_indexes": {"hnsw": {"m": 2}}},
        {"vector_indexes": {"hnsw": {"ef_search": 1}}},
    ):
        with pytest.raises(ValidationError):
            StoreConfig(**bad)
    assert KgragConfig(store={"vector_index": "exact"}).store.vector_index == "exact"


def test_graph_vectors_stay_exact_under_auto_and_follow_an_explicit_hnsw() -> None:
    from kgrag.graph.index import _dense

    ids, matrix = [f"e{i}" for i in range(30)], clustered(30)
    vectors = {f"h{i}": v for i, v in enumerate(matrix)}
    hashes = list(vectors)
    assert isinstance(_dense(ids, hashes, vectors, AnnParams(threshold=10)), DenseIndex)  # not saved: exact
    assert isinstance(_dense(ids, hashes, vectors, AnnParams(index="hnsw")), HnswIndex)
    assert isinstance(_dense(ids, hashes, vectors, None), DenseIndex)
