"""Store contract, evaluation provenance: traces are saved with their run in one go, read back in saved
order (all of a run, or one question's), replaced with the run and deleted with it, and persistent."""

from __future__ import annotations

from tests.store.backends import StoreMaker

from kgrag.core.eval_records import EvalRunRecord, EvalScore, EvalTrace
from kgrag.store import Store


def _traces(run_id: str) -> list[EvalTrace]:
    judged = {"prompt": "eval_coverage", "reply": {"reasoning": "covers both facts", "score": 1.0}}
    return [
        EvalTrace(run_id, 0, "bm25", "q1", {"answer": "Shale [1]", "contexts": [{"id": "c1", "text": "Shale…"}]}),
        EvalTrace(run_id, 0, "dense", "q1", {"answer": "Öl – ünïcode", "judge_calls": [judged]}),
        EvalTrace(run_id, 1, "bm25", "q2", {"answer": "", "contexts": []}),
    ]


def test_traces_saved_read_by_question_replaced_and_deleted(store: Store) -> None:
    before = store.generation()
    score = EvalScore("r1", 0, "bm25", "q1", "Fact", "rouge-l", 0.5)
    store.eval_runs.save(EvalRunRecord("r1", "run", 1.0, "qs.json"), [score], _traces("r1"))
    store.eval_runs.save(EvalRunRecord("r2", "run", 2.0, "qs.json"), [], _traces("r2")[:1])
    assert store.generation() == before
    assert store.eval_runs.traces("r1") == _traces("r1")
    assert [t.pipeline for t in store.eval_runs.traces("r1", "q1")] == ["bm25", "dense"]
    assert store.eval_runs.traces("r1", "q1")[1].record["judge_calls"][0]["reply"]["reasoning"] == "covers both facts"
    assert store.eval_runs.traces("r1", "missing") == [] and store.eval_runs.traces("missing") == []
    store.eval_runs.save(EvalRunRecord("r1", "run", 3.0, "qs.json"), [score], _traces("r1")[2:])
    assert [t.question_id for t in store.eval_runs.traces("r1")] == ["q2"]
    assert store.eval_runs.delete("r1") is True
    assert store.eval_runs.traces("r1") == [] and len(store.eval_runs.traces("r2")) == 1


def test_saving_without_traces_keeps_the_old_signature(store: Store) -> None:
    store.eval_runs.save(EvalRunRecord("r1", "run", 1.0, "a"), [])
    assert store.eval_runs.traces("r1") == []


def test_traces_persist(make_persistent_store: StoreMaker) -> None:
    first = make_persistent_store("ws")
    first.eval_runs.save(EvalRunRecord("r1", "run", 1.0, "a"), [], _traces("r1"))
    first.close()
    again = make_persistent_store("ws")
    assert again.eval_runs.traces("r1") == _traces("r1")
