"""`kgrag eval pairwise` options through the CLI with a scripted LLM (a JSONL rule file): the A/A check,
the judge temperature, and the warning when the trials are copies of each other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_QUESTIONS
from tests.helpers import scripted_workspace
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app

ASPECTS = {"comprehensiveness": 3, "relevance": 4, "empowerment": 3, "directness": 4}
LONG = "The outage lasted four hours on the night of the release, and the team restored service by rolling back."
RULES = [
    {"match": "Length: write about 40 words", "response": LONG},
    {
        "match": "You answer questions for a user",
        "response": "The outage lasted four hours on the night of the release.",
    },
    {
        "match": "You score two answers",
        "response": json.dumps({"reasoning": "alike", "answer_1": ASPECTS, "answer_2": ASPECTS}),
    },
]


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return scripted_workspace(tmp_path, monkeypatch, RULES)


def test_aa_check_and_identical_trials_are_reported(ws: Path, tmp_path: Path) -> None:
    args = ["--dataset", str(SAMPLE_QUESTIONS), "--sample", "3", "--trials", "4", "--out", str(tmp_path / "rep")]
    result = CliRunner().invoke(
        app, ["eval", "pairwise", "bm25", "dense", *args, "--aa-check", "--temperature", "0", "-w", str(ws)]
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "note: judge temperature 0" in out  # said before the run
    assert "A/A check (A's answers on both sides, 3 questions): tie within the confidence interval, passed" in out
    assert "warning: trial 2 repeated trial 1 exactly for every question" in out and "ran 2 of 4" in out
    assert "unbiased procedure (zeng-unbiased-eval)" in out and "Length gap after alignment" in out
    stored = json.loads(next((tmp_path / "rep").glob("pairwise_*.json")).read_text())[0]
    assert stored["settings"]["temperature"] == 0 and stored["judge"]["temperature"] == 0
    assert stored["result"]["aa_check"]["passed"] is True
    assert stored["result"]["trials"]["identical"] is True and "length_gap" in stored["result"]


def test_naive_run_is_titled_naive(ws: Path, tmp_path: Path) -> None:
    args = ["--dataset", str(SAMPLE_QUESTIONS), "--sample", "3", "--naive", "--out", str(tmp_path / "rep")]
    result = CliRunner().invoke(app, ["eval", "pairwise", "bm25", "dense", *args, "-w", str(ws)])
    assert result.exit_code == 0, result.output
    title = next(line for line in result.output.splitlines() if line.startswith("# Pairwise"))
    assert "naive protocol" in title and "unbiased" not in title
    assert "| ties | 100.0% |" in result.output  # equal scores are ties, not wins for A


def test_alignment_regenerates_with_the_pipeline_and_its_retrieved_context(ws: Path) -> None:
    from kgrag.evaluation.pairwise.writer import PipelineWriter
    from kgrag.evaluation.service.pairwise import _writer

    with Workspace.open(ws) as w:
        question = "What happened during the May 2024 outage?"
        response = w.query(question, "bm25")
        writer = _writer(w.eval._parts, w.eval._querying, "bm25", question, response)
        assert isinstance(writer, PipelineWriter)
        assert writer.result is response.result and writer.client is w.eval._parts.query_context.llm()
        assert writer.regenerate(40, 0) == LONG


def test_disclosure_names_the_pairwise_temperature(ws: Path, tmp_path: Path) -> None:
    args = ["--dataset", str(SAMPLE_QUESTIONS), "--sample", "2", "--trials", "2", "--out", str(tmp_path / "rep")]
    result = CliRunner().invoke(app, ["eval", "pairwise", "bm25", "dense", *args, "-w", str(ws)])
    assert result.exit_code == 0, result.output
    stored = json.loads(next((tmp_path / "rep").glob("pairwise_*.json")).read_text())[0]
    assert stored["judge"]["temperature"] == 0.7 == stored["result"]["trials"]["temperature"]
    assert "note: judge temperature 0" not in result.output
