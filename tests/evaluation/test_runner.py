"""`ws.eval.run` end to end on the sample corpus (fake embedder, LLM-free and scripted judges): scores
per pipeline × type, mean ± std over runs, micro and macro averages, cost split, stored and reloaded,
reports with plots; plus aggregation and stratified sampling on their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS

from kgrag import Workspace
from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalScore
from kgrag.evaluation import load_dataset
from kgrag.evaluation.aggregate import ALL, MACRO, question_values, summarize
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.intervals import Bootstrap
from kgrag.evaluation.sampling import stratified_sample
from kgrag.evaluation.verdicts import compare_all
from kgrag.prompts import load_prompt


def test_llm_free_run_is_stored_summarised_and_reported(sample_ws: Workspace, tmp_path: Path) -> None:
    items = load_dataset(SAMPLE_QUESTIONS)[:6]
    run = sample_ws.eval.run(items, ["bm25", "dense"], runs=2, dataset="sample", label="t")
    summary = run.summary
    assert set(summary) == {"bm25", "dense"}
    recall = summary["bm25"]["evidence-recall"]
    assert recall[ALL]["runs"] == 2 and recall[ALL]["std"] == 0.0  # LLM-free: identical runs
    assert {"context-relevance", "rouge-l", "answer-accuracy", "coverage", "faithfulness"} <= set(summary["bm25"])
    costs = summary["dense"]
    assert costs["cost.context_tokens"][ALL]["mean"] > 0 and costs["cost.generation_tokens"][ALL]["mean"] == 0
    assert run.record.payload["judge"] is None and run.record.payload["plan"]["mode"] == "llm-free"
    again = sample_ws.eval.get_run(run.record.id)
    assert again.summary == summary and sample_ws.eval.get_run("latest").record.id == run.record.id
    paths = sample_ws.eval.report([run.record.id], tmp_path / "rep")
    text = paths["markdown"].read_text()
    assert "on evidence-recall" in text and " n=6" in text and "context tokens" in text
    assert "nothing varies: runs are identical" in text
    assert any(p.suffix == ".png" and p.stat().st_size > 1000 for p in paths.values())
    report = json.loads(paths["json"].read_text())
    assert report["summary"]["bm25"]["evidence-recall"][ALL]["ci95"] is not None
    assert report["baseline"] == "bm25" and "dense" in report["paired"]["evidence-recall"]
    compared = sample_ws.eval.report([run.record.id, run.record.id], tmp_path / "cmp")
    assert f"bm25 @{run.record.id}" in compared["markdown"].read_text()


def test_unknown_names_fail_before_running(sample_ws: Workspace) -> None:
    items = load_dataset(SAMPLE_QUESTIONS)[:1]
    with pytest.raises(KgragError, match="unknown metric 'bleu'"):
        sample_ws.eval.run(items, ["bm25"], metrics=["bleu"])
    with pytest.raises(KgragError, match="judges need an LLM"):
        sample_ws.eval.run(items, ["bm25"], judges=["panel"])
    with pytest.raises(KgragError, match="need an LLM"):
        sample_ws.eval.run(items, ["bm25"], mode="llm")


def test_judged_run_discloses_the_judge_and_keeps_failures_unmeasured(tmp_path: Path) -> None:
    ws = Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"})
    ws.index([SAMPLE_DOCS])
    ws.close()
    script = tmp_path / "script.jsonl"
    rules = [
        {"match": "one judge on a panel", "response": '{"reasoning": "ok", "score": 5}'},
        {"match": "Question:", "response": "Shale is owned by the Platform team."},
    ]
    script.write_text("\n".join(json.dumps(r) for r in rules) + "\n")
    llm = {"provider": "scripted", "model": "judge-x", "providers": {"scripted": {"file": str(script)}}}
    ws = Workspace.open(tmp_path / "ws", embedding={"provider": "fake"}, llm=llm)
    try:
        items = load_dataset(SAMPLE_QUESTIONS)[:2]
        run = ws.eval.run(items, ["bm25"], runs=1, metrics=["coverage"], mode="both", judges=["panel"])
    finally:
        ws.close()
    row = run.summary["bm25"]
    assert row["judge.panel"][ALL]["mean"] == 5.0
    assert row["coverage:llm"][ALL]["mean"] is None and row["coverage:llm"][ALL]["unmeasured"] == 2
    assert row["coverage"][ALL]["mean"] is not None
    judge = run.record.payload["judge"]
    assert (
        row["cost.generation_tokens"][ALL]["mean"] > 0
        and row["cost.total_tokens"][ALL]["mean"] >= row["cost.generation_tokens"][ALL]["mean"]
    )
    assert judge["models"] == ["judge-x"] and judge["temperature"] == 0.0
    assert judge["prompts"] == {name: load_prompt(name).version for name in ("eval_reference_judge", "eval_coverage")}


def test_mean_std_over_runs_and_macro_vs_micro() -> None:
    scores = [
        EvalScore("r", 0, "p", "q1", "A", "m", 1.0),
        EvalScore("r", 0, "p", "q2", "A", "m", 1.0),
        EvalScore("r", 0, "p", "q3", "A", "m", 1.0),
        EvalScore("r", 0, "p", "q4", "B", "m", 0.0),
        EvalScore("r", 1, "p", "q1", "A", "m", 0.5),
        EvalScore("r", 1, "p", "q2", "A", "m", 0.5),
        EvalScore("r", 1, "p", "q3", "A", "m", 0.5),
        EvalScore("r", 1, "p", "q4", "B", "m", 0.0),
        EvalScore("r", 1, "p", "q5", "B", "m", None, "judge failed"),
    ]
    row = summarize(scores)["p"]["m"]
    assert row["A"]["mean"] == pytest.approx(0.75) and row["A"]["std"] == pytest.approx(0.3535533905932738)
    assert row[ALL]["mean"] == pytest.approx((0.75 + 0.375) / 2)  # micro: per-run mean over questions
    # macro: per-run weighted mean of type means; A (3 questions) and B (1) are both under the minimum
    # stratum size, so they weigh 3 : 1
    assert row[MACRO]["mean"] == pytest.approx((0.75 + 0.375) / 2)
    assert row["B"]["unmeasured"] == 1 and row[ALL]["unmeasured"] == 1 and row["B"]["n"] == 1  # questions
    assert row["A"]["n"] == 3 and row["B"]["ci95"] is None
    # three equal scores do not make the mean certain: the interval is that of scores piled at one value,
    # inside the scores' range [0, 1]
    low, high = row["A"]["ci95"]
    assert 0.0 <= low < 0.75 < high <= 1.0


def test_intervals_stay_in_the_range_scores_and_costs_can_take() -> None:
    values = [0.0] * 7 + [0.3, 0.9, 1.0]  # piled at 0: the skew-corrected interval reached below it
    scores = [EvalScore("r", 0, "p", f"q{i}", "A", "m", v) for i, v in enumerate(values)]
    scores += [EvalScore("r", 0, "b", f"q{i}", "A", "m", 1.0 - v) for i, v in enumerate(values)]
    scores += [EvalScore("r", 0, "p", f"q{i}", "A", "cost.latency_ms", v) for i, v in enumerate([1, 1, 2, 90])]
    summary = summarize(scores)
    for column in ("A", ALL, MACRO):
        low, high = summary["p"]["m"][column]["ci95"]
        assert 0.0 <= low <= high <= 1.0
    assert summary["p"]["cost.latency_ms"][ALL]["ci95"][0] >= 0.0
    stats = compare_all(question_values(scores), ["m"], "b", Bootstrap())
    low, high = stats["paired"]["m"]["p"][ALL]["ci95"]
    assert -1.0 <= low <= high <= 1.0


def test_one_question_type_has_the_same_macro_as_all() -> None:
    scores = [EvalScore("r", 0, "p", f"q{i}", "A", "m", v) for i, v in enumerate([0.2, 0.4, 0.4, 1.0])]
    row = summarize(scores)["p"]["m"]
    assert row[MACRO]["ci95"] == row[ALL]["ci95"] and row[MACRO]["mean"] == row[ALL]["mean"]


def test_stratified_sample_keeps_the_type_mix_and_is_seeded() -> None:
    items = [QAItem(str(i), f"q{i}", "", "Fact" if i < 60 else "Reason" if i < 90 else "Summary") for i in range(100)]
    sample = stratified_sample(items, 20, seed=3)
    types = [i.question_type for i in sample]
    assert (
        len(sample) == 20 and types.count("Fact") == 12 and types.count("Reason") == 6 and types.count("Summary") == 2
    )
    assert sample == stratified_sample(items, 20, seed=3) and sample != stratified_sample(items, 20, seed=4)
    assert [int(i.id) for i in sample] == sorted(int(i.id) for i in sample)
    assert len(stratified_sample(items, 2, seed=0)) == 2
