"""`kgrag graph communities` and `kgrag graph report` through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.communities.conftest import GROUPS, WorkspaceMaker, index_docs, write_groups
from typer.testing import CliRunner

from kgrag.cli.app import app


@pytest.fixture
def ws_path(make_ws: WorkspaceMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KGRAG_EMBEDDING__PROVIDER", "fake")
    monkeypatch.setenv("KGRAG_GRAPH__EXTRACTOR", "none")
    ws = make_ws()
    index_docs(ws, write_groups(tmp_path / "docs", {**GROUPS, "pair": ["Solo", "Duo"]}))
    ws.close()
    return tmp_path / "ws"


def test_communities_command_builds_shows_and_plots(ws_path: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["graph", "communities", "-w", str(ws_path), "--show"])
    assert shown.exit_code == 0 and "no communities built yet" in shown.output  # --show builds nothing
    assert "run `kgrag graph communities`" in shown.output and "graph is empty" not in shown.output
    built = runner.invoke(app, ["graph", "communities", "-w", str(ws_path), "--plot", str(tmp_path / "plots")])
    assert built.exit_code == 0, built.output
    assert "modularity" in built.output and "reports: 3 (3 extractive)" in built.output
    assert "this run: " in built.output and "naive_calls" not in built.output  # no LLM: no count of LLM calls
    assert (tmp_path / "plots" / "community_sizes.png").stat().st_size > 1000
    as_json = runner.invoke(app, ["graph", "communities", "-w", str(ws_path), "--json"])
    payload = json.loads(as_json.output)
    assert payload["levels"][0]["communities"] == 4 and payload["levels"][0]["below_min"] == 1
    assert payload["run"]["reports_written"] == 0 and len(payload["largest"]) == 3
    largest = payload["largest"][0]["id"]
    by_rank = runner.invoke(app, ["graph", "report", "1", "-w", str(ws_path), "--json"])
    by_id = runner.invoke(app, ["graph", "report", largest, "-w", str(ws_path)])
    assert json.loads(by_rank.output)["community_id"] == largest
    assert by_id.exit_code == 0 and "level 0" in by_id.output and "cites:" in by_id.output


def test_report_errors_are_one_line(ws_path: Path) -> None:
    runner = CliRunner()
    runner.invoke(app, ["graph", "communities", "-w", str(ws_path)])
    unknown = runner.invoke(app, ["graph", "report", "c0-nope", "-w", str(ws_path)])
    assert unknown.exit_code == 1 and "no community 'c0-nope'" in unknown.output
    rank = runner.invoke(app, ["graph", "report", "99", "-w", str(ws_path)])
    assert rank.exit_code == 1 and "no community ranked 99" in rank.output


def test_reports_that_fell_back_make_the_command_exit_incomplete(
    ws_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replies = tmp_path / "replies.jsonl"
    replies.write_text('{"default": "not a report at all"}\n', encoding="utf-8")
    monkeypatch.setenv("KGRAG_LLM__PROVIDER", "scripted")
    monkeypatch.setenv("KGRAG_LLM__PROVIDERS__SCRIPTED__FILE", str(replies))
    result = CliRunner().invoke(app, ["graph", "communities", "-w", str(ws_path)])
    assert result.exit_code == 3, result.output
    assert "incomplete: " in result.output and "community reports fell back to extractive" in result.output
    assert "reports_naive_calls" in result.output  # LLM calls were made: the naive count is their yardstick


def test_show_on_an_empty_graph_says_the_graph_is_empty(make_ws: WorkspaceMaker, tmp_path: Path) -> None:
    make_ws().close()
    shown = CliRunner().invoke(app, ["graph", "communities", "-w", str(tmp_path / "ws"), "--show"])
    assert shown.exit_code == 0 and "the graph is empty" in shown.output and "built yet" not in shown.output
