"""`kgrag eval calibrate`: human labels against a run's judge scores, κ and ρ computed by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_QUESTIONS
from tests.helpers import scripted_workspace
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalScore
from kgrag.evaluation.judges.calibration import (
    Label,
    binned,
    calibrate,
    cohen_kappa,
    load_labels,
    rejudge_plan,
    spearman,
)


def test_cohen_kappa_by_hand() -> None:
    human = [5, 4, 3, 5, 1, 2]
    judge = [5, 4, 4, 5, 1, 1]
    # p_o = 4/6 (positions 1, 2, 4, 5 agree)
    # human counts 5:2 4:1 3:1 1:1 2:1; judge counts 5:2 4:2 1:2
    # p_e = (2·2 + 1·2 + 1·0 + 1·2 + 1·0) / 36 = 8/36
    # κ = (24/36 − 8/36) / (1 − 8/36) = 16/28 = 4/7
    assert cohen_kappa(human, judge) == pytest.approx(4 / 7)
    assert cohen_kappa([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    # p_o = 0, p_e = (1·1 + 1·1)/4 = 1/2 → κ = −1/2 / 1/2 = −1
    assert cohen_kappa([1, 2], [2, 1]) == pytest.approx(-1.0)
    assert cohen_kappa([3, 3], [3, 3]) is None  # one category on both sides: p_e = 1, undefined


def test_spearman_by_hand() -> None:
    # ranks human [5.5, 4, 3, 5.5, 1, 2], judge [5.5, 3.5, 3.5, 5.5, 1.5, 1.5] (ties averaged), both mean 3.5
    # deviations h [2, .5, −.5, 2, −2.5, −1.5], j [2, 0, 0, 2, −2, −2]
    # Σhj = 4 + 0 + 0 + 4 + 5 + 3 = 16; Σh² = 17; Σj² = 16 → ρ = 16 / √(17·16) = 4/√17
    assert spearman([5, 4, 3, 5, 1, 2], [5, 4, 4, 5, 1, 1]) == pytest.approx(4 / math.sqrt(17))
    # no ties: ranks [1, 3, 4, 2] vs [1, 2, 4, 3], Σd² = 2 → ρ = 1 − 6·2 / (4·15) = 0.8
    assert spearman([0.0, 0.5, 1.0, 0.25], [0.1, 0.4, 0.9, 0.6]) == pytest.approx(0.8)
    assert spearman([1, 2], [1, 2]) is None  # fewer than 3 pairs
    assert spearman([1, 1, 1], [1, 2, 3]) is None  # constant side


def test_bins() -> None:
    # width 1/3 over [0, 1]: 0.25 → 0, 0.4 → 1, 0.6 → 1, 0.9 → 2, 1.0 → last bin
    assert binned([0.25, 0.4, 0.6, 0.9, 1.0], 0.0, 1.0, 3) == [0, 1, 1, 2, 2]


def _score(qid: str, metric: str, value: float | None, run: int = 0, pipeline: str = "dense") -> EvalScore:
    return EvalScore("run-x", run, pipeline, qid, "Fact Retrieval", metric, value)


PANEL_PAYLOAD = {"models": {"llm": "openai:judge-a"}, "judge": {"models": ["judge-a", "judge-b"]}}


def test_calibrate_per_judge_and_metric() -> None:
    human = [5, 4, 3, 5, 1, 2]
    model_a = [5, 4, 4, 5, 1, 1]
    model_b = [5, 4, 3, 5, 1, 2]
    scores = []
    for i, (a, b) in enumerate(zip(model_a, model_b, strict=True)):
        scores += [
            _score(f"q{i}", "judge.panel", (a + b) / 2),
            _score(f"q{i}", "judge.panel.judge-a", a),
            _score(f"q{i}", "judge.panel.judge-b", b),
        ]
    coverage_human = [0.0, 0.5, 1.0, 0.25]
    coverage_judge = [0.1, 0.4, 0.9, 0.6]
    for i, value in enumerate(coverage_judge):
        # two repeated runs: the labels name the second run's answers, whose score is the judged value
        scores += [_score(f"q{i}", "coverage:llm", 1 - value, 0), _score(f"q{i}", "coverage:llm", value, 1)]
    labels = [Label(f"q{i}", "dense", "judge.panel", h, "run-x", 0) for i, h in enumerate(human)]
    labels += [Label(f"q{i}", "dense", "coverage:llm", h, "run-x", 1) for i, h in enumerate(coverage_human)]
    labels.append(Label("q5", "dense", "coverage:llm", 0.5, "run-x", 1))  # that answer's coverage is unmeasured
    scores.append(_score("q5", "coverage:llm", None, 1))
    result = calibrate(labels, scores, PANEL_PAYLOAD, "run-x")
    rows = {(r.judge, r.metric): r for r in result.rows}

    a = rows[("judge-a", "judge.panel")]
    assert (a.n, a.scale) == (6, "categorical")
    assert a.kappa == pytest.approx(4 / 7) and a.spearman == pytest.approx(4 / math.sqrt(17))
    b = rows[("judge-b", "judge.panel")]
    assert b.kappa == pytest.approx(1.0) and b.spearman == pytest.approx(1.0)
    mean = rows[("panel mean (judge-a, judge-b)", "judge.panel")]
    assert mean.scale == "continuous" and mean.n == 6  # means such as 3.5 are not categories

    cov = rows[("judge-a", "coverage:llm")]  # the primary judge scored the LLM metric
    assert (cov.n, cov.scale) == (4, "continuous")
    assert cov.spearman == pytest.approx(0.8)
    # 3 bins over [0, 1]: human [0, 1, 2, 0], judge [0, 1, 2, 1]; p_o = 3/4
    # counts human 0:2 1:1 2:1, judge 0:1 1:2 2:1 → p_e = (2 + 2 + 1)/16 = 5/16; κ = (12/16 − 5/16)/(11/16) = 7/11
    assert cov.kappa == pytest.approx(7 / 11)

    assert result.unmatched == 1 and result.labels == 11 and "unmeasured" in result.warnings[-1]
    # judge-a generated the answers: warned; judge-b did not
    assert any("'judge-a' is also the generator" in w for w in result.warnings)
    assert not any("'judge-b'" in w for w in result.warnings)


def test_labels_that_match_no_answer_are_refused() -> None:
    scores = [_score("q0", "coverage:llm", 0.2, 0), _score("q0", "coverage:llm", 0.9, 1)]
    scores.append(_score("q1", "coverage:llm", 0.4, 0))
    with pytest.raises(KgragError, match=r"labels.csv:3: answer run-x\|q0\|dense\|2 matches no answer of run run-x"):
        calibrate([Label("q0", "dense", "coverage:llm", 1, "run-x", 2, "labels.csv:3")], scores, {}, "run-x")
    with pytest.raises(KgragError, match=r"matches no answer of run run-x"):
        calibrate([Label("q0", "dense", "coverage:llm", 1, "run-y", 0)], scores, {}, "run-x")
    with pytest.raises(KgragError, match=r"'q9' through 'dense' matches no answer"):
        calibrate([Label("q9", "dense", "coverage:llm", 1)], scores, {}, "run-x")
    with pytest.raises(KgragError, match=r"has no score 'coverage'"):
        calibrate([Label("q0", "dense", "coverage", 1, "run-x", 0)], scores, {}, "run-x")
    # an older label (no answer id) cannot say which of q0's two answers was read: a one-line migration message
    with pytest.raises(KgragError, match=r"2 answers to 'q0' through 'dense'; add an answer_id column"):
        calibrate([Label("q0", "dense", "coverage:llm", 1)], scores, {}, "run-x")
    # ... and still works where the run holds one answer
    assert calibrate([Label("q1", "dense", "coverage:llm", 0.4)], scores, {}, "run-x").rows[0].n == 1


def test_labels_equal_to_the_judge_on_the_same_answers_agree_fully_where_run_means_would_not() -> None:
    judged = {("q0", 0): 2, ("q0", 1): 5, ("q1", 0): 4, ("q1", 1): 1, ("q2", 0): 3, ("q2", 1): 3, ("q3", 0): 5}
    scores = [_score(q, "judge.correctness", v, trial) for (q, trial), v in judged.items()]
    keyed = [Label(q, "dense", "judge.correctness", v, "run-x", trial) for (q, trial), v in judged.items()]
    row = calibrate(keyed, scores, {}, "run-x").rows[0]
    assert row.n == 7 and row.kappa == pytest.approx(1.0) and row.spearman == pytest.approx(1.0)


def test_no_warning_when_judge_and_generator_differ() -> None:
    payload = {"models": {"llm": "openai:gen-m"}, "judge": {"models": ["judge-a"]}}
    scores = [_score("q0", "judge.correctness", 7)]
    result = calibrate([Label("q0", "dense", "judge.correctness", 8)], scores, payload, "run-x")
    assert result.warnings == [] and result.rows[0].n == 1 and result.rows[0].spearman is None


def test_labels_files(tmp_path: Path) -> None:
    csv_file = tmp_path / "labels.csv"
    csv_file.write_text("question_id,pipeline,metric,human\nq1,dense,judge.panel,4\n\nq2,bm25,coverage:llm,0.5\n")
    assert load_labels(csv_file) == [
        Label("q1", "dense", "judge.panel", 4.0),
        Label("q2", "bm25", "coverage:llm", 0.5),
    ]
    jsonl = tmp_path / "labels.jsonl"
    jsonl.write_text(json.dumps({"id": "q1", "pipeline": "dense", "metric": "judge.panel", "human_score": 5}) + "\n")
    assert load_labels(jsonl) == [Label("q1", "dense", "judge.panel", 5.0)]
    bad = tmp_path / "bad.csv"
    bad.write_text("question_id,pipeline,metric,human\nq1,dense,judge.panel,great\n")
    with pytest.raises(KgragError, match=r"bad.csv:2: human score 'great' is not a number"):
        load_labels(bad)
    missing = tmp_path / "missing.jsonl"
    missing.write_text('{"question_id": "q1", "metric": "judge.panel", "human": 3}\n')
    with pytest.raises(KgragError, match=r"missing.jsonl:1: missing pipeline \(each label needs answer_id"):
        load_labels(missing)
    keyed = tmp_path / "keyed.csv"
    keyed.write_text("answer_id,metric,human\nrun-1|q|1|dense|2,judge.panel,4\n")  # a question id with the separator
    assert load_labels(keyed) == [Label("q|1", "dense", "judge.panel", 4.0, "run-1", 2)]
    keyed.write_text("answer_id,metric,human\nrun-1|q1|dense,judge.panel,4\n")
    with pytest.raises(KgragError, match=r"keyed.csv:2: answer_id 'run-1\|q1\|dense' is not run\|question"):
        load_labels(keyed)
    keyed.write_text("answer_id,question_id,metric,human\nrun-1|q1|dense|0,q2,judge.panel,4\n")
    with pytest.raises(KgragError, match=r"question_id 'q2' is not the one in answer_id"):
        load_labels(keyed)
    with pytest.raises(KgragError, match=r"use a \.csv"):
        load_labels(tmp_path / "labels.txt")


def test_rejudge_plan() -> None:
    labels = [
        Label("q1", "dense", "judge.panel", 4),
        Label("q1", "bm25", "coverage:llm", 0.5),
        Label("q2", "dense", "judge.correctness", 7),
        Label("q2", "dense", "faithfulness@graphrag-bench", 1.0),
    ]
    assert rejudge_plan(labels) == (
        ["bm25", "dense"],
        ["coverage", "faithfulness@graphrag-bench"],
        ["dimensions", "panel"],
        "both",
    )
    assert rejudge_plan(labels[:1]) == (["dense"], ["rouge-l"], ["panel"], "llm-free")


RULES = [
    {"match": "You are one judge on a panel", "response": json.dumps({"reasoning": "close", "score": 4})},
    {"match": "Question:", "response": "The Platform team owns Shale."},
]


def test_calibrate_cli_warns_when_the_judge_generated_the_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = scripted_workspace(tmp_path, monkeypatch, RULES)
    runner = CliRunner()
    common = ["--workspace", str(ws), "--out", str(tmp_path / "rep")]
    ran = runner.invoke(
        app,
        [
            *["eval", "run", "--dataset", str(SAMPLE_QUESTIONS), "--sample", "3", "--pipelines", "bm25"],
            *["--runs", "1", "--metrics", "rouge-l", "--mode", "llm-free", "--judge", "panel", *common],
        ],
    )
    assert ran.exit_code == 0, ran.output
    with Workspace.open(ws) as w:
        run = w.eval.get_run("latest")
    qids = sorted({s.question_id for s in run.scores})
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "question_id,pipeline,metric,human\n"
        + "".join(f"{q},bm25,judge.panel,{h}\n" for q, h in zip(qids, [4, 3, 5], strict=True))
    )
    result = runner.invoke(app, ["eval", "calibrate", str(labels), *common])
    assert result.exit_code == 0, result.output
    assert "judge model 'judge-m' is also the generator model" in " ".join(result.output.split())
    report = json.loads((tmp_path / "rep" / f"calibration-{run.record.id}.json").read_text())
    rows = {r["judge"]: r for r in report["agreement"]}
    # the judge said 4 every time, the humans 4, 3, 5: one of three agree; a constant side has no ρ
    # p_o = 1/3; p_e = (1·3)/9 = 1/3 (only category 4 is shared) → κ = 0
    assert rows["judge-m"]["n"] == 3 and rows["judge-m"]["kappa"] == pytest.approx(0.0)
    assert rows["judge-m"]["spearman"] is None
    assert report["warnings"] and report["unmatched"] == 0
    # re-judge: the labelled questions are answered and judged again in a new stored run
    again = runner.invoke(app, ["eval", "calibrate", str(labels), "--dataset", str(SAMPLE_QUESTIONS), *common])
    assert again.exit_code == 0, again.output
    with Workspace.open(ws) as w:
        rejudged = w.eval.get_run("latest")
    assert rejudged.record.id != run.record.id and rejudged.record.label == "calibration re-judge"
    assert {s.question_id for s in rejudged.scores} == set(qids)
    report = json.loads((tmp_path / "rep" / f"calibration-{rejudged.record.id}.json").read_text())
    assert {r["judge"]: r["n"] for r in report["agreement"]}["judge-m"] == 3
    missing = runner.invoke(app, ["eval", "calibrate", str(tmp_path / "nope.csv"), *common])
    assert missing.exit_code != 0 and "Traceback" not in missing.output and "nope.csv" in missing.output


def _panel(word: str, score: int) -> dict[str, str]:
    return {"match": f"one judge on a panel.*{word}", "response": json.dumps({"reasoning": "seen", "score": score})}


KEYED_RULES = [
    _panel("Osprey", 2),
    _panel("Tessellate", 5),
    _panel("VP Engineering", 3),
    _panel("wrote Shale", 4),
    {"match": "Question:", "response": "The Platform team owns Shale."},
]


def test_calibrate_cli_on_exported_answer_ids_gives_kappa_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = scripted_workspace(tmp_path, monkeypatch, KEYED_RULES, model="gen-m")
    items = json.loads(SAMPLE_QUESTIONS.read_text())[:4]
    dataset = tmp_path / "four.json"
    dataset.write_text(json.dumps(items))
    runner = CliRunner()
    common = ["--workspace", str(ws), "--out", str(tmp_path / "rep")]
    ran = runner.invoke(
        app,
        [
            *["eval", "run", "--dataset", str(dataset), "--pipelines", "bm25,dense", "--runs", "2"],
            *["--metrics", "rouge-l", "--mode", "llm-free", "--judge", "panel", *common],
        ],
    )
    assert ran.exit_code == 0, ran.output
    export = tmp_path / "answers.jsonl"
    assert runner.invoke(app, ["eval", "export", "latest", "--jsonl", str(export), "-w", str(ws)]).exit_code == 0
    rows = [row for line in export.read_text().splitlines() if (row := json.loads(line))["kind"] == "answer"]
    with Workspace.open(ws) as w:
        run = w.eval.get_run("latest")
        runner.invoke(app, ["eval", "run", "--dataset", str(dataset), "--pipelines", "bm25", *common])  # a later run
    panel = {(s.run_index, s.question_id, s.pipeline): s.value for s in run.scores if s.metric == "judge.panel"}
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"answer_id": r["answer_id"], "metric": "judge.panel", "human": panel[key]}) + "\n"
            for r in rows
            if (key := (r["run"], r["question_id"], r["pipeline"])) and panel[key] is not None
        )
    )
    result = runner.invoke(app, ["eval", "calibrate", str(labels), *common])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "rep" / f"calibration-{run.record.id}.json").read_text())
    row = {r["judge"]: r for r in report["agreement"]}["gen-m"]
    assert row["n"] == 16 and row["kappa"] == pytest.approx(1.0) and report["unmatched"] == 0
    stray = tmp_path / "stray.csv"
    stray.write_text(f"answer_id,metric,human\n{run.record.id}|sample-a-001|bm25|7,judge.panel,4\n")
    refused = runner.invoke(app, ["eval", "calibrate", str(stray), *common])
    assert refused.exit_code != 0 and "Traceback" not in refused.output
    assert "stray.csv:2: answer" in refused.output and "matches no answer" in refused.output
