"""`kgrag eval rescore EXPORT`: every score of a run computed again from its export alone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_QUESTIONS
from tests.helpers import scripted_workspace
from typer.testing import CliRunner

from kgrag.cli.app import app
from kgrag.core.errors import KgragError
from kgrag.evaluation.rescore import read_export, rescore

VERDICTS = {"reasoning": "checked", "verdicts": [{"statement": "s1", "supported": True}]}
RULES = [
    {"match": "one judge on a panel", "response": json.dumps({"reasoning": "names the team", "score": 4})},
    {
        "match": "You grade a generated answer against a reference",
        "response": json.dumps(
            {"reasoning": "r", "true_positives": ["a"], "false_positives": ["b"], "false_negatives": ["c", "d"]}
        ),
    },
    {"match": "You check", "response": json.dumps(VERDICTS)},
    {"match": "You grade retrieved items", "response": json.dumps({"reasoning": "r", "scores": [2, 1, 0, 0, 1]})},
    {"match": "Question:", "response": "The Platform team owns Shale."},
]
METRICS = "rouge-l,answer-accuracy,coverage,faithfulness,evidence-recall,context-relevance"


@pytest.fixture
def exported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = scripted_workspace(tmp_path, monkeypatch, RULES)
    runner = CliRunner()
    ran = runner.invoke(
        app,
        [
            *["eval", "run", "--dataset", str(SAMPLE_QUESTIONS), "--sample", "4", "--pipelines", "bm25,dense"],
            *["--runs", "2", "--metrics", METRICS, "--mode", "both", "--judge", "panel", "--judge-temperature", "0.5"],
            *["-w", str(ws), "--out", str(tmp_path / "rep")],
        ],
    )
    assert ran.exit_code == 0, ran.output
    path = tmp_path / "run.jsonl"
    done = runner.invoke(app, ["eval", "export", "latest", "--jsonl", str(path), "-w", str(ws)])
    assert done.exit_code == 0, done.output
    return path


def test_rescore_reproduces_every_score_of_an_export(exported: Path, tmp_path: Path) -> None:
    export = read_export(exported)
    assert export.run["plan"]["metrics"] and export.run["settings"]["evidence_overlap"] == 0.7
    first = export.answers[0]
    assert first["evidence"] and first["similarities"] and first["judge_calls"] and first["contexts"]
    assert first["scores"]["answer-accuracy:llm"]["value"] is not None  # cosine and judge reply both in it
    result = rescore(export)
    assert result.exact, result.differences[:3]
    expected = {f"{m}{s}" for m in METRICS.split(",") for s in ("", ":llm")} | {"judge.panel", "judge.panel.judge-m"}
    assert expected <= set(result.series) and all(n == 16 for n, _ in result.series.values())
    measured = [s for s in result.scores if s.metric == "answer-accuracy:llm" and s.value is not None]
    assert len(measured) == 16 and len({round(s.value or 0, 6) for s in measured}) > 1  # the cosine part varies

    runner = CliRunner()
    done = runner.invoke(app, ["eval", "rescore", str(exported), "--out", str(tmp_path / "again")])
    assert done.exit_code == 0, done.output
    assert "reproduced exactly" in done.output and "| answer-accuracy:llm | 16 | 0 |" in done.output
    assert list((tmp_path / "again").glob("*.md"))


def _rewrite(path: Path, change: Callable[[list[dict[str, Any]]], object]) -> Path:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    change(rows)
    out = path.with_name("changed.jsonl")
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return out


def test_rescore_catches_a_changed_score_or_reply_and_refuses_a_missing_input(exported: Path) -> None:
    def score(rows: list[dict[str, Any]]) -> None:
        rows[1]["scores"]["answer-accuracy:llm"]["value"] = 0.123

    def reply(rows: list[dict[str, Any]]) -> None:
        for call in rows[2]["judge_calls"]:
            if call["prompt"] == "eval_reference_judge":
                call["reply"]["score"] = 1

    runner = CliRunner()
    for change, series in ((score, "answer-accuracy:llm"), (reply, "judge.panel")):
        result = rescore(read_export(_rewrite(exported, change)))
        assert not result.exact and result.series[series][1] >= 1
        assert any(series in line for line in result.differences)
        done = runner.invoke(app, ["eval", "rescore", str(_rewrite(exported, change))])
        assert done.exit_code == 1 and "differs:" in done.output

    def similarity(rows: list[dict[str, Any]]) -> None:
        rows[1]["similarities"] = []

    with pytest.raises(KgragError, match=r"\|0: the export holds no similarity"):
        rescore(read_export(_rewrite(exported, similarity)))
    old = _rewrite(exported, lambda rows: rows.pop(0))  # an export without its run line
    done = runner.invoke(app, ["eval", "rescore", str(old)])
    assert done.exit_code != 0 and "no run line" in done.output and "Traceback" not in done.output
