"""A pipeline named twice in ``--pipelines`` runs once: `kgrag eval retrieval`, `kgrag eval run` and
`kgrag compare` drop the repeat with one note on stderr naming it (the report on stdout stays clean), and
``ws.eval`` counts every question once however often a pipeline is named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from typer.testing import CliRunner

from kgrag.cli.app import app
from kgrag.evaluation import load_dataset
from kgrag.workspace import Workspace

NOTE = "! --pipelines names dense more than once; each pipeline runs once"
ENV = {"COLUMNS": "250", "KGRAG_EMBEDDING__PROVIDER": "fake"}


@pytest.fixture(scope="module")
def ws_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("repeat") / "ws"
    with Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"}) as ws:
        ws.index([SAMPLE_DOCS])
    yield path


def test_eval_retrieval_runs_a_repeated_pipeline_once_and_says_so(ws_path: Path, tmp_path: Path) -> None:
    args = ["eval", "retrieval", "-w", str(ws_path), "--dataset", str(SAMPLE_QUESTIONS), "--limit", "3"]
    result = CliRunner().invoke(app, [*args, "--pipelines", "dense,dense", "--out", str(tmp_path)], env=ENV)
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == NOTE and NOTE not in result.stdout
    data = json.loads((tmp_path / "retrieval_eval.json").read_text(encoding="utf-8"))
    assert data["counts"]["All"] == 3 and len(data["outcomes"]) == 3
    markdown = (tmp_path / "retrieval_eval.md").read_text(encoding="utf-8")
    assert sum(line.startswith("| dense |") for line in markdown.splitlines()) == 4  # one row in each table
    assert "(n=6" not in markdown


def test_eval_run_runs_a_repeated_pipeline_once_and_says_so(ws_path: Path, tmp_path: Path) -> None:
    args = ["eval", "run", "-w", str(ws_path), "--dataset", str(SAMPLE_QUESTIONS), "--sample", "4", "--runs", "1"]
    options = ["--mode", "llm-free", "--metrics", "evidence-recall", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, *options, "--pipelines", "dense,bm25,dense"], env=ENV)
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == NOTE
    assert "pipelines dense, bm25;" in result.stdout
    with Workspace.open(ws_path, embedding={"provider": "fake"}) as ws:
        assert ws.eval.get_run("latest").record.payload["plan"]["pipelines"] == ["dense", "bm25"]


def test_compare_answers_with_a_repeated_pipeline_once_and_says_so(ws_path: Path) -> None:
    args = ["compare", "Who owns Kestrel?", "-w", str(ws_path), "--pipelines", "dense,dense,bm25", "--json"]
    result = CliRunner().invoke(app, args, env=ENV)
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == NOTE
    assert [row["pipeline"] for row in json.loads(result.stdout)] == ["dense", "bm25"]


def test_the_library_counts_each_question_once_however_often_a_pipeline_is_named(ws_path: Path) -> None:
    items = load_dataset(SAMPLE_QUESTIONS)[:3]
    with Workspace.open(ws_path, embedding={"provider": "fake"}) as ws:
        report = ws.eval.retrieval(items, ["bm25", "bm25"], 5)
    assert report.pipelines == ["bm25"] and report.counts()["All"] == 3 and len(report.outcomes) == 3
