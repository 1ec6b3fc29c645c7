"""Paths that used to be slow or silent: an estimate without an LLM runs no model and no extraction,
indexing into a log (stdout not a terminal) prints progress as it goes, a cold graph-local query loads
the graph index once.

Each runs the real CLI in a fresh process where what is loaded or printed is the point.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.conftest import SAMPLE_DOCS
from tests.helpers import index_with_word_extractor

from kgrag import Workspace
from kgrag.cli.progress import RichProgress, console_progress
from kgrag.cli.progress_lines import LineProgress
from kgrag.graph import snapshot

DOCS = [SAMPLE_DOCS / "team-apps.md", SAMPLE_DOCS / "hiring-process.md", SAMPLE_DOCS / "product-osprey.md"]
FAKE = {"KGRAG_EMBEDDING__PROVIDER": "fake"}


def _kgrag(args: list[str], code: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``kgrag ARGS`` in a fresh interpreter, stdout a pipe; ``code`` runs after it (e.g. print modules)."""
    script = (
        "import sys, json\nfrom kgrag.cli.app import main\n"
        f"sys.argv = ['kgrag', *{args!r}]\n"
        f"try:\n    main()\nexcept SystemExit as exc:\n    status = exc.code\n{code}"
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**_env(), **(env or {})}, timeout=600
    )


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "COLUMNS"}


def test_estimate_without_an_llm_runs_no_extraction_and_no_model(tmp_path: Path) -> None:
    Workspace.init(tmp_path / "ws").close()
    loaded = "print('MODULES ' + json.dumps(sorted(sys.modules)))"
    done = _kgrag(["index", *map(str, DOCS), "--estimate", "-w", str(tmp_path / "ws")], loaded)
    assert done.returncode == 0, done.stderr
    assert "estimate (nothing was changed or sent): 0 LLM calls" in done.stdout
    assert "no LLM is configured" in done.stdout
    chunks = int(done.stdout.split(" new chunks")[0].rsplit(" ", 1)[1])
    assert chunks > 0  # the chunks a real run would write were counted
    modules = json.loads(done.stdout.split("MODULES ", 1)[1])
    assert [m for m in ("spacy", "onnxruntime", "torch") if m in modules] == []  # no extraction, no embedding
    with Workspace.open(tmp_path / "ws") as ws:
        assert ws.store.chunks.count() == 0  # and nothing was written


def test_indexing_into_a_pipe_prints_a_line_per_stage_as_it_goes(tmp_path: Path) -> None:
    Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}).close()
    done = _kgrag(["index", *map(str, DOCS), "-w", str(tmp_path / "ws")], env=FAKE)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for stage in ("ingest", "embed", "extract", "embed-graph"):
        assert any(line.startswith(f"{stage}: started") for line in lines), (stage, done.stdout)
        assert any(line.startswith(f"{stage}: done, ") for line in lines), (stage, done.stdout)
    assert "━" not in done.stdout  # no bar drawn into the log
    ended = lines.index(next(line for line in lines if line.startswith("embed: done")))
    assert ended < lines.index(next(line for line in lines if line.startswith("extract: started")))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _lines(interval: float = 5.0) -> tuple[LineProgress, io.StringIO, Clock]:
    out, clock = io.StringIO(), Clock()
    return LineProgress(Console(file=out, width=200), interval, clock), out, clock


def test_a_line_every_interval_while_a_stage_advances() -> None:
    progress, out, clock = _lines()
    progress.start("embed", 80)
    for _ in range(80):
        clock.now += 0.25  # 20 s in all: a line at 5, 10, 15 and 20 s, not one per advance
        progress.advance("embed")
    progress.finish("embed")
    lines = out.getvalue().splitlines()
    assert lines[0] == "embed: started, 80 to do" and lines[-1] == "embed: done, 80/80 (100%) after 20.0s"
    assert len(lines) == 2 + 4 and "embed: 20/80 (25%) after 5.0s" in lines


def test_a_stage_that_does_not_advance_still_shows_it_is_alive() -> None:
    progress, out, clock = _lines()
    progress.start("extract", 10)
    clock.now = 4.0
    progress.tick()
    assert len(out.getvalue().splitlines()) == 1  # not yet
    clock.now = 6.0
    progress.tick()
    clock.now = 7.0
    progress.tick()
    assert out.getvalue().splitlines()[1:] == ["extract: 0/10 (0%) after 6.0s"]  # the format of an advance's line


def test_a_stage_that_counts_nothing_shows_no_count() -> None:
    progress, out, clock = _lines()
    progress.start("communities", None)
    clock.now = 6.0
    progress.tick()
    clock.now = 6.5
    progress.finish("communities")
    assert out.getvalue().splitlines() == [
        "communities: started",
        "communities: running after 6.0s",
        "communities: done after 6.5s",
    ]


def test_the_console_decides_bars_or_lines() -> None:
    assert isinstance(console_progress(Console(file=io.StringIO())), LineProgress)
    assert isinstance(console_progress(Console(file=io.StringIO(), force_terminal=True)), RichProgress)


def test_a_cold_graph_local_query_loads_the_graph_index_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}) as ws:
        index_with_word_extractor(ws, DOCS)
    loads: list[int] = []
    real = snapshot.build_graph_index

    def counting(*args: Any, **kwargs: Any) -> Any:
        loads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(snapshot, "build_graph_index", counting)
    with Workspace.open(
        tmp_path / "ws", embedding={"provider": "fake"}
    ) as ws:  # a new process's view: no model loaded, nothing hot
        meta_before = {key: ws.store.meta.get(key) for key in ("embedding.model", "embedding.window")}
        response = ws.query("Who leads the Apps team?", pipeline="graph-local")
        assert response.result.items and len(loads) == 1
        ws.query("Which team owns Osprey?", pipeline="graph-local")
        assert len(loads) == 1  # nothing was written in between, so nothing reloads
        assert {key: ws.store.meta.get(key) for key in meta_before} == meta_before
