"""dense, bm25 and hybrid pipelines: ranking, RRF arithmetic, provenance and traces."""

from __future__ import annotations

import numpy as np
import pytest

from kgrag import Workspace
from kgrag.core.context import ContextItem
from kgrag.core.dense_index import DenseIndex
from kgrag.core.errors import KgragError
from kgrag.retrieval.steps import FuseRRF, QueryState


@pytest.mark.parametrize("pipeline", ["dense", "bm25", "hybrid"])
def test_pipeline_returns_k_items_with_provenance(sample_ws: Workspace, pipeline: str) -> None:
    result = sample_ws.retrieve("Who leads the Platform team that owns Kestrel?", pipeline, 4)
    assert len(result.items) == 4
    for item in result.items:
        assert item.kind == "chunk" and item.text and item.doc_id
        assert item.chunk_ids == [item.id]
        start, end = item.span or (0, 0)
        doc = sample_ws.store.documents.get(item.doc_id)
        assert doc is not None and end > start
    steps = [s.step for s in result.trace]
    assert steps[-1] == "total" and "hydrate" in steps
    scores = [i.score for i in result.items]
    assert scores == sorted(scores, reverse=True)


def test_bm25_finds_exact_identifier(sample_ws: Workspace) -> None:
    result = sample_ws.retrieve("INC-2023-012 flash wear", "bm25", 3)
    assert any("INC-2023-012" in item.text for item in result.items)


def test_hybrid_keeps_scores_of_both_streams(sample_ws: Workspace) -> None:
    result = sample_ws.retrieve("Riffle leak detection pilot", "hybrid", 5)
    assert all("rrf" in item.scores for item in result.items)
    assert any({"dense", "bm25"} <= item.scores.keys() for item in result.items)


def test_rrf_arithmetic() -> None:
    state = QueryState(query="q", k=3, queries=["q"])
    state.streams["a"] = [ContextItem("chunk", x, "", 1.0, [x], scores={"a": 1.0}) for x in ("x", "y")]
    state.streams["b"] = [ContextItem("chunk", x, "", 1.0, [x], scores={"b": 1.0}) for x in ("y", "z")]
    FuseRRF(("a", "b"), k=60).run(state, env=None)  # type: ignore[arg-type]
    scores = {item.id: item.score for item in state.items}
    assert scores["y"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["x"] == pytest.approx(1 / 61)
    assert state.items[0].id == "y"


def test_dense_index_exact_top_k() -> None:
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(50, 8)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    index = DenseIndex([f"c{i}" for i in range(50)], matrix)
    hits = index.search(matrix[7], 5)
    assert hits[0].id == "c7" and len(hits) == 5
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert DenseIndex([], np.zeros((0, 8), dtype=np.float32)).search(matrix[0], 3) == []


def test_unknown_pipeline_is_a_user_error(sample_ws: Workspace) -> None:
    with pytest.raises(KgragError, match="unknown pipeline") as raised:
        sample_ws.retrieve("x", "nope", 3)
    assert "did you mean" not in str(raised.value)
    with pytest.raises(KgragError, match="unknown pipeline 'hybird'; did you mean 'hybrid'"):
        sample_ws.retrieve("x", "hybird", 3)


def test_an_unknown_default_pipeline_names_the_setting(sample_ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sample_ws.config.retrieval, "default_pipeline", "nosuch")
    with pytest.raises(KgragError, match=r"'nosuch' \(retrieval.default_pipeline in kgrag.toml"):
        sample_ws.retrieve("x", None, 3)


def test_query_gives_extractive_answer_with_citations(sample_ws: Workspace) -> None:
    response = sample_ws.query("What is the hotel cap in Toronto?", pipeline="hybrid")
    assert response.answer.mode == "extractive"
    retrieved = {item.id for item in response.result.items}
    assert response.answer.citations and set(response.answer.citations) <= retrieved
    assert all(f"[{c}]" in response.answer.text for c in response.answer.citations)


def test_extractive_answer_quotes_passages_not_their_derived_copies() -> None:
    from kgrag.core.context import RetrievalResult
    from kgrag.generation import extractive_answer
    from kgrag.models.embeddings import FakeEmbedder

    sentence = "The staged rollout rule was introduced after INC-2023-012 bricked 212 sensors."
    items = [
        ContextItem("chunk", "c1", sentence + " Other text follows here.", 1.0, ["c1"]),
        ContextItem("relation", "r1", f"Osprey related to Tejo: {sentence}", 0.9, ["c1"]),
        ContextItem("entity", "e1", f"Osprey (product): {sentence}", 0.8, ["c1"]),
    ]
    answer = extractive_answer(
        "Which rule came after INC-2023-012?", RetrievalResult("g", "q", items), FakeEmbedder(), 3
    )
    assert answer.text.count("212 sensors") == 1 and answer.citations == ["c1"]
