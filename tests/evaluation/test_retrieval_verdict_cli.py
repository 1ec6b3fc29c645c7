"""`kgrag eval retrieval` on the sample corpus prints intervals, paired differences against the baseline
with wins/losses/ties and a verdict line, and its JSON carries the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from typer.testing import CliRunner

from kgrag.cli.app import app
from kgrag.workspace import Workspace


def _workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KGRAG_EMBEDDING__PROVIDER", "fake")
    path = tmp_path / "ws"
    with Workspace.init(path, graph={"extractor": "none"}) as ws:
        ws.index([SAMPLE_DOCS])
    return path


def test_eval_retrieval_prints_and_writes_intervals_paired_differences_and_a_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, out = _workspace(tmp_path, monkeypatch), tmp_path / "reports"
    args = ["eval", "retrieval", "-w", str(ws), "--dataset", str(SAMPLE_QUESTIONS), "--pipelines", "dense,bm25"]
    result = CliRunner().invoke(app, [*args, "--baseline", "bm25", "--out", str(out)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Mean [95% CI] per question type" in text and "Paired difference against the baseline" in text
    assert "bm25" in text and "W/L/T" in text and "(n=68)" in text
    assert "Verdict: " in text and ("Best on recall" in text or "No significant difference on recall" in text)
    assert "small" in text  # the 8 Creative Generation questions are under the minimum stratum size

    stats = json.loads((out / "retrieval_eval.json").read_text())["statistics"]
    assert stats["baseline"] == "bm25" and stats["settings"]["min_stratum"] == 10
    dense = stats["recall"]["estimates"]["dense"]
    assert dense["All"]["n"] == 68 and len(dense["All"]["ci95"]) == 2
    assert dense["All"]["ci95"][0] <= dense["All"]["mean"] <= dense["All"]["ci95"][1]
    diff = stats["recall"]["paired"]["dense"]["All"]
    tally = diff["record"]
    assert tally["wins"] + tally["losses"] + tally["ties"] == diff["n"] == 68 and 0 <= diff["p"] <= 1
    assert set(stats["recall"]["paired"]["dense"]) >= {"All", "Macro", "Fact Retrieval"}
    verdicts = stats["recall"]["verdicts"]
    assert set(verdicts) == {"Macro", "All"} and verdicts["All"]["family"]["rule"] == "holm"
    assert "chunk_recall" in stats and "Verdict" in (out / "retrieval_eval.md").read_text()
    # hand-written questions carry no caveat about generated ones
    assert json.loads((out / "retrieval_eval.json").read_text())["caveats"] == []
    assert "Generated questions" not in text


def test_an_unknown_baseline_is_one_clear_line(tmp_path: Path) -> None:
    args = ["eval", "retrieval", "-w", str(tmp_path / "none"), "--dataset", str(SAMPLE_QUESTIONS)]
    result = CliRunner().invoke(app, [*args, "--pipelines", "dense,bm25", "--baseline", "graph"])
    assert result.exit_code != 0 and "--baseline 'graph' is not among --pipelines" in result.output
    assert "Traceback" not in result.output


def test_questions_without_evidence_are_refused_not_scored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws, dataset = _workspace(tmp_path, monkeypatch), tmp_path / "q.json"
    dataset.write_text(json.dumps([{"question": "Who leads the platform team?"}, {"question": "What is Kestrel?"}]))
    args = ["eval", "retrieval", "-w", str(ws), "--dataset", str(dataset), "--pipelines", "dense,bm25"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "reports")], env={"COLUMNS": "250"})
    assert result.exit_code == 1 and "none of the 2 questions has evidence to score" in result.output
    assert not (tmp_path / "reports").exists()
