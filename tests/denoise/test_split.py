"""Splitting one merged name back out of its entity by hand (`kgrag graph edit split`): the entity comes
back, later denoising runs keep the two apart, the split is logged and undone like any edit, and a name
that was never merged into the entity is refused with the names that were."""

from __future__ import annotations

from pathlib import Path

from tests.denoise.test_contrasts import add_plan_names
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app as cli_app

CONFIG = """
[embedding]
provider = "fake"
[graph]
extractor = "none"
[denoise]
ego_text = "name_type"
blocker = "none"
threshold = 0.7
target_reduction = 0.9
reflection = "none"
candidates = 10
[denoise.groupers.greedy]
anchor_floor = -1.0
"""


def _denoised(path: Path) -> tuple[str, str, str]:
    """A workspace in which "HTTP session cookies" was merged into "HTTP session cookie", which the
    denoising plan also merges; returns the kept entity's id, the merged name and the id its entity had."""
    Workspace.init(path).close()
    (path / "kgrag.toml").write_text(CONFIG, encoding="utf-8")
    with Workspace.open(path) as ws:
        add_plan_names(ws)
        report, _ = ws.denoise.plan(reflect=False)
        assert {"HTTP session cookie", "HTTP session cookies"} in [{s.canonical, *s.aliases} for s in report.merges]
        ids = {e.name: e.id for e in ws.store.graph.entities()}
        ws.graph.edit("merge", ids["HTTP session cookie"], ids["HTTP session cookies"])
    return ids["HTTP session cookie"], "HTTP session cookies", ids["HTTP session cookies"]


def _ids(ws: Workspace) -> set[str]:
    return {e.id for e in ws.store.graph.entities()}


def test_a_split_name_is_an_entity_again_and_is_not_merged_again(tmp_path: Path) -> None:
    kept, merged, merged_id = _denoised(tmp_path / "ws")
    with Workspace.open(tmp_path / "ws") as ws:
        assert merged_id not in _ids(ws)
        entry = ws.graph.edit("split", kept, merged)
        assert (entry["op"], entry["status"], entry["mentions_moved"]) == ("split", "applied", 1)
        assert {kept, merged_id} <= _ids(ws)
        names = {e.id: e.name for e in ws.store.graph.entities()}
        report, _ = ws.denoise.plan(reflect=False)
        assert not any({names[kept], merged} <= {s.canonical, *s.aliases} for s in report.merges)
        assert report.counts["resolve"]["refused_split"] >= 1
        assert [e["op"] for e in ws.graph.edits()] == ["merge", "split"]


def test_the_cli_splits_refuses_a_name_never_merged_and_undoes(tmp_path: Path) -> None:
    kept, merged, merged_id = _denoised(tmp_path / "ws")
    path = str(tmp_path / "ws")
    runner = CliRunner()
    refused = runner.invoke(cli_app, ["graph", "edit", "split", kept, "correct password", "-w", path])
    lines = refused.output.strip().splitlines()
    assert refused.exit_code == 1 and len(lines) == 1, refused.output
    assert "has no merged name 'correct password'" in lines[0] and repr(merged) in lines[0]
    done = runner.invoke(cli_app, ["graph", "edit", "split", kept, merged, "-w", path])
    assert done.exit_code == 0 and "split" in done.output, done.output
    with Workspace.open(tmp_path / "ws") as ws:
        assert merged_id in _ids(ws)
    undone = runner.invoke(cli_app, ["graph", "undo-denoise", "-w", path])
    assert undone.exit_code == 0, undone.output
    with Workspace.open(tmp_path / "ws") as ws:
        assert merged_id not in _ids(ws) and kept in _ids(ws)
        assert [e["status"] for e in ws.graph.edits()] == ["applied", "undone"]
        report, _ = ws.denoise.plan(reflect=False)
        assert report.counts["resolve"]["refused_split"] == 0
