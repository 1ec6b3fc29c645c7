"""`kgrag graph denoise [--dry-run]` and `kgrag graph undo-denoise` through typer's CliRunner."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.denoise.conftest import dump
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.cli.errors import EXIT_USER_ERROR, run_app

MakeWs = Callable[..., Workspace]


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_dry_run_apply_and_undo(make_ws: MakeWs, tmp_path: Path) -> None:
    ws = make_ws()
    path = str(ws.path)
    before = dump(ws)
    ws.close()
    plan = tmp_path / "plan.json"
    code, output = _invoke("graph", "denoise", "--dry-run", "--out", str(plan), "-w", path)
    assert code == 0, output
    assert "Denoising plan" in output and plan.exists()
    code, output = _invoke("graph", "denoise", "--only", "resolve", "--json", "-w", path)
    assert code == 0, output
    data = json.loads(output)
    # the CLI reads kgrag.toml (default [denoise] settings), so how many merge depends on the embedder
    assert (
        data["applied"] and data["counts"]["resolve"]["entities_merged_away"] >= 1 and "reflect" not in data["counts"]
    )
    with Workspace.open(path) as applied:
        assert dump(applied) != before
    code, output = _invoke("graph", "undo-denoise", "-w", path)
    assert code == 0 and "undid denoising run" in output
    with Workspace.open(path) as again:
        assert dump(again) == before
    code, output = _invoke("graph", "undo-denoise", "-w", path)
    assert code == 1 and "nothing to undo" in output


def test_bad_option_values_are_user_errors(make_ws: MakeWs) -> None:
    ws = make_ws()
    path = str(ws.path)
    ws.close()
    code, output = _invoke("graph", "denoise", "--reflection", "astrology", "-w", path)
    assert code == 1 and "astrology" in output


def test_an_unknown_only_step_is_one_user_error_line(make_ws: MakeWs, capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_ws()
    path = str(ws.path)
    ws.close()
    with pytest.raises(SystemExit) as stopped:  # run_app: what the `kgrag` script runs, with its exit codes
        run_app(app, ["graph", "denoise", "--only", "everything", "--dry-run", "-w", path])
    lines = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == EXIT_USER_ERROR and len(lines) == 1, lines
    assert lines[0].startswith("error: Invalid value for '--only'") and "internal error" not in lines[0]
    assert all(step in lines[0] for step in ("resolve", "reflect", "both"))


def test_the_dry_run_prints_and_writes_the_before_statistics(make_ws: MakeWs, tmp_path: Path) -> None:
    ws = make_ws()
    path = str(ws.path)
    ws.close()
    plan = tmp_path / "plan.json"
    code, output = _invoke("graph", "denoise", "--dry-run", "--out", str(plan), "-w", path)
    assert code == 0, output
    assert "| measure | before |" in output and "| nodes | 6 |" in output  # the graph as it is: 6 entities
    written = json.loads(plan.read_text(encoding="utf-8"))
    assert written["before"]["nodes"] == 6 and written["after"] is None
    code, output = _invoke("graph", "denoise", "--dry-run", "--json", "--out", str(plan), "-w", path)
    assert code == 0 and json.loads(output)["before"]["edges"] == written["before"]["edges"] > 0
