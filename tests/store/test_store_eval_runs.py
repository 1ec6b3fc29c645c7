"""Store contract, evaluation runs: saved with their scores in one go, listed newest first, unmeasured
scores kept as None (never 0), replaced by id, deleted with their scores, persistent, and bookkeeping
(no content-generation change)."""

from __future__ import annotations

from tests.store.backends import StoreMaker

from kgrag.core.eval_records import EvalRunRecord, EvalScore
from kgrag.store import Store


def _scores(run_id: str) -> list[EvalScore]:
    return [
        EvalScore(run_id, 0, "bm25", "q1", "Fact", "rouge-l", 0.5),
        EvalScore(run_id, 0, "bm25", "q2", "Fact", "faithfulness", None, "judge reply invalid"),
        EvalScore(run_id, 1, "dense", "q1", "Fact", "rouge-l", 0.25),
    ]


def test_save_get_list_scores(store: Store) -> None:
    before = store.generation()
    store.eval_runs.save(
        EvalRunRecord("r1", "run", 10.0, "qs.json", "first", {"runs": 2, "judge": {"model": "m"}}), _scores("r1")
    )
    store.eval_runs.save(EvalRunRecord("r2", "pairwise", 20.0, "qs.json"), [])
    assert store.generation() == before
    run = store.eval_runs.get("r1")
    assert run is not None and run.payload == {"runs": 2, "judge": {"model": "m"}} and run.label == "first"
    assert [r.id for r in store.eval_runs.runs()] == ["r2", "r1"]
    assert [r.id for r in store.eval_runs.runs("run")] == ["r1"]
    scores = store.eval_runs.scores("r1")
    assert scores == _scores("r1")
    assert scores[1].value is None and scores[1].note == "judge reply invalid"
    assert store.eval_runs.get("missing") is None and store.eval_runs.scores("missing") == []


def test_save_replaces_and_delete_removes_scores(store: Store) -> None:
    store.eval_runs.save(EvalRunRecord("r1", "run", 1.0, "a"), _scores("r1"))
    store.eval_runs.save(EvalRunRecord("r1", "run", 2.0, "b"), _scores("r1")[:1])
    run = store.eval_runs.get("r1")
    assert run is not None and run.dataset == "b" and len(store.eval_runs.scores("r1")) == 1
    assert store.eval_runs.delete("r1") is True and store.eval_runs.delete("r1") is False
    assert store.eval_runs.get("r1") is None and store.eval_runs.scores("r1") == []


def test_eval_runs_persist(make_persistent_store: StoreMaker) -> None:
    first = make_persistent_store("ws")
    first.eval_runs.save(EvalRunRecord("r1", "run", 1.0, "a", payload={"x": [1, 2]}), _scores("r1"))
    first.close()
    again = make_persistent_store("ws")
    run = again.eval_runs.get("r1")
    assert run is not None and run.payload == {"x": [1, 2]} and len(again.eval_runs.scores("r1")) == 3
