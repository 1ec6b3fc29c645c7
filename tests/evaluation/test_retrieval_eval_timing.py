"""`eval retrieval` times each pipeline without the work all of them share: the question's embedding is
made once before any pipeline runs and reported apart, and the first pipeline changes every question."""

from __future__ import annotations

from tests.conftest import SAMPLE_QUESTIONS

from kgrag import Workspace
from kgrag.core.context import RetrievalResult
from kgrag.evaluation import load_dataset
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.retrieval_eval import evaluate_retrieval
from kgrag.evaluation.retrieval_report import render_markdown


def _items(n: int) -> list[QAItem]:
    return [QAItem(id=f"q{i}", question=f"question {i}", answer="", question_type="Fact") for i in range(n)]


def test_shared_work_runs_before_every_pipeline_and_the_first_pipeline_turns() -> None:
    calls: list[tuple[str, str]] = []

    def prepare(question: str) -> float:
        calls.append((question, "prepare"))
        return 2.5

    def retrieve(question: str, pipeline: str | None, k: int | None) -> RetrievalResult:
        calls.append((question, str(pipeline)))
        return RetrievalResult(pipeline=str(pipeline), query=question, items=[])

    report = evaluate_retrieval(_items(4), ["a", "b", "c"], 5, 0.7, retrieve, prepare=prepare)
    per_question = [[p for q, p in calls if q == f"question {i}"] for i in range(4)]
    assert [steps[0] for steps in per_question] == ["prepare"] * 4
    assert [steps[1] for steps in per_question] == ["a", "b", "c", "a"]  # each pipeline leads in turn
    assert all(sorted(steps[1:]) == ["a", "b", "c"] for steps in per_question)
    assert report.query_embedding_ms == [2.5] * 4
    assert report.embedding_latency() == {"p50": 2.5, "p95": 2.5}
    assert [o.pipeline for o in report.outcomes][:3] == ["a", "b", "c"]


def test_the_workspace_embeds_each_question_once_before_pipelines_that_read_vectors(sample_ws: Workspace) -> None:
    items = load_dataset(SAMPLE_QUESTIONS)[:6]
    report = sample_ws.eval.retrieval(items, ["bm25", "dense", "hybrid"], 3)
    assert len(report.query_embedding_ms) == 6
    cache = sample_ws.components.query_context.get("query_vectors")
    assert all(cache.get(item.question, lambda _: None) is not None for item in items)
    assert "timed apart" in render_markdown(report, "sample")
    lexical = sample_ws.eval.retrieval(items, ["bm25"], 3)
    assert lexical.query_embedding_ms == [] and lexical.embedding_latency() == {}
    assert "timed apart" not in render_markdown(lexical, "sample")
    assert lexical.table()["bm25"] == report.table()["bm25"]  # the order and the warm-up change no result
