"""Pipelines from outside the package: an entry-point plug-in (listed by `kgrag pipelines`, runnable,
configurable) and a pipeline registered in code on one workspace only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.config import KgragConfig
from kgrag.core.errors import ConfigError, KgragError
from kgrag.retrieval import Pipeline
from kgrag.retrieval.steps import BM25Search, Hydrate, TakeTop, UseStream

SRC = Path(__file__).resolve().parents[2] / "src"
FAKE_TOML = '[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n'
WIDE = {"COLUMNS": "200"}


@pytest.fixture
def cli_ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    assert CliRunner().invoke(app, ["init", str(ws)]).exit_code == 0
    (ws / "kgrag.toml").write_text(FAKE_TOML)
    result = CliRunner().invoke(app, ["index", str(SAMPLE_DOCS / "team-platform.md"), "-w", str(ws)])
    assert result.exit_code == 0, result.output
    return ws


def test_plugin_pipeline_is_listed_and_runs(toy_plugin: Path, cli_ws: Path) -> None:
    runner = CliRunner()
    listing = runner.invoke(app, ["pipelines", "-w", str(cli_ws)], env=WIDE)
    assert listing.exit_code == 0, listing.output
    row = next(line for line in listing.output.splitlines() if " toy " in f" {line} ")
    assert "plugin:toy-plugin" in row and "Toy pipeline from a plug-in." in row
    answer = runner.invoke(app, ["query", "Who leads the Platform team?", "-p", "toy", "--json", "-w", str(cli_ws)])
    assert answer.exit_code == 0, answer.output
    with Workspace.open(cli_ws) as ws:
        result = ws.retrieve("Who leads the Platform team?", "toy", 2)
    assert result.pipeline == "toy" and len(result.items) == 2
    assert all(item.metadata["toy"] and item.text for item in result.items)
    assert "mark_toy" in [step.step for step in result.trace]


def test_plugin_pipeline_in_a_kgrag_process(toy_plugin: Path, cli_ws: Path) -> None:
    path = os.pathsep.join([str(toy_plugin), str(SRC), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path, **WIDE}
    done = subprocess.run(
        [sys.executable, "-m", "kgrag.cli", "pipelines", "-w", str(cli_ws)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "toy" in done.stdout and "plugin:toy-plugin" in done.stdout


def test_a_plugin_pipeline_can_have_a_settings_table(toy_plugin: Path) -> None:
    config = KgragConfig(retrieval={"pipelines": {"toy": {"pool": 3, "options": {"shout": True}}}})
    assert config.retrieval.pool_for("toy") == 3
    assert config.retrieval.pipelines["toy"].model_dump() == {
        "pool": 3,
        "rrf_k": None,
        "context_tokens": None,
        "dense_sentence_share": None,
        "shout": True,
    }
    with pytest.raises(ValueError, match="unknown retrieval pipeline 'toi'"):
        KgragConfig(retrieval={"pipelines": {"toi": {"pool": 3}}})


def test_without_the_plugin_its_table_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "kgrag.toml").write_text(FAKE_TOML + "[retrieval.pipelines.toy]\npool = 3\n")
    with pytest.raises(ConfigError, match=r"retrieval\.pipelines\.toy: unknown retrieval pipeline 'toy'"):
        Workspace.open(tmp_path)


def _mine(name: str, config: KgragConfig) -> Pipeline:
    return Pipeline(name, "Registered in code.", (BM25Search(pool=5), UseStream("bm25"), TakeTop(), Hydrate()))


def test_registration_in_code_stays_on_its_workspace(graph_ws: Workspace) -> None:
    fake = {"embedding": {"provider": "fake"}, "graph": {"extractor": "none"}}
    with Workspace.open(graph_ws.path, **fake) as first, Workspace.open(graph_ws.path, **fake) as second:
        first.pipelines.register("mine", _mine)
        result = first.retrieve("Kestrel storage", "mine", 2)
        assert result.pipeline == "mine" and len(result.items) == 2
        assert first.pipelines.entry("mine").origin == "local"
        assert "mine" not in second.pipelines
        with pytest.raises(KgragError, match="unknown pipeline 'mine'"):
            second.retrieve("Kestrel storage", "mine", 2)


def test_the_registry_key_names_the_pipeline(fake_ws: Workspace) -> None:
    fake_ws.pipelines.register("alias", lambda name, config: _mine("whatever", config))
    fake_ws.pipelines.register("broken", lambda name, config: "not a pipeline")
    assert fake_ws.retrieve("x", "alias", 1).pipeline == "alias"
    with pytest.raises(ConfigError, match=r"returned str, not a kgrag\.retrieval\.Pipeline"):
        fake_ws.retrieve("x", "broken", 1)
