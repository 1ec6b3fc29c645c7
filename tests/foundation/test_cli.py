"""The CLI end to end: real `kgrag` processes for exit codes, CliRunner for the rest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from typer.testing import CliRunner

from kgrag.cli.app import app

FAKE_TOML = '[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n'


def _kgrag(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgrag.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


@pytest.fixture
def cli_ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    result = CliRunner().invoke(app, ["init", str(ws)])
    assert result.exit_code == 0, result.output
    (ws / "kgrag.toml").write_text(FAKE_TOML)
    return ws


def test_index_query_status_pipelines_flow(cli_ws: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["index", str(SAMPLE_DOCS), "-w", str(cli_ws)])
    assert result.exit_code == 0, result.output
    assert "new 32" in result.output
    again = runner.invoke(app, ["index", str(SAMPLE_DOCS), "-w", str(cli_ws)])
    assert "unchanged 32" in again.output
    status = runner.invoke(app, ["status", "-w", str(cli_ws), "--json"])
    info = json.loads(status.output)
    assert info["documents"] == {"indexed": 32} and info["chunks"] == info["vectors"] > 0
    query = runner.invoke(
        app,
        [
            "query",
            "Who chairs the change approval board?",
            "-w",
            str(cli_ws),
            "--json",
            "--pipeline",
            "bm25",
            "--k",
            "3",
        ],
    )
    payload = json.loads(query.output)
    assert len(payload["retrieval"]["items"]) == 3
    assert payload["answer"]["citations"]
    listing = runner.invoke(app, ["pipelines", "-w", str(cli_ws)])
    assert all(name in listing.output for name in ("dense", "bm25", "hybrid"))


def test_remove_command(cli_ws: Path) -> None:
    runner = CliRunner()
    runner.invoke(app, ["index", str(SAMPLE_DOCS), "-w", str(cli_ws)])
    target = SAMPLE_DOCS / "hiring-process.md"
    result = runner.invoke(app, ["remove", str(target), "-w", str(cli_ws)])
    assert result.exit_code == 0 and "hiring-process.md" in result.output
    missing = runner.invoke(app, ["remove", "no-such-doc", "-w", str(cli_ws)])
    assert missing.exit_code == 1


def test_eval_retrieval_writes_reports(cli_ws: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    runner.invoke(app, ["index", str(SAMPLE_DOCS), "-w", str(cli_ws)])
    out = tmp_path / "reports"
    result = runner.invoke(
        app,
        [
            "eval",
            "retrieval",
            "--dataset",
            str(SAMPLE_QUESTIONS),
            "--pipelines",
            "dense,bm25,hybrid",
            "--k",
            "5",
            "--out",
            str(out),
            "-w",
            str(cli_ws),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "retrieval_eval.json").read_text())
    assert set(data["summary"]) == {"dense", "bm25", "hybrid"}
    assert data["counts"]["All"] == 68
    assert 0.3 < data["summary"]["bm25"]["All"] <= 1.0
    # chunk-only pipelines: everything they return is a chunk, so both views agree
    assert data["summary_chunks_only"]["hybrid"] == data["summary"]["hybrid"]
    assert data["mean_context_tokens"]["dense"] > 100
    assert (out / "retrieval_eval.png").stat().st_size > 1000
    assert "Fact Retrieval" in (out / "retrieval_eval.md").read_text()


def test_user_errors_exit_1_with_one_line(tmp_path: Path) -> None:
    result = _kgrag("status", "-w", str(tmp_path / "nowhere"))
    assert result.returncode == 1
    assert result.stderr.startswith("error:") and "kgrag init" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_config_exits_1_naming_the_field(cli_ws: Path) -> None:
    (cli_ws / "kgrag.toml").write_text('[retrieval]\nk = "many"\n')
    result = _kgrag("query", "x", "-w", str(cli_ws))
    assert result.returncode == 1 and "retrieval.k" in result.stderr


def test_model_change_needs_reindex(cli_ws: Path) -> None:
    runner = CliRunner()
    runner.invoke(app, ["index", str(SAMPLE_DOCS / "hiring-process.md"), "-w", str(cli_ws)])
    (cli_ws / "kgrag.toml").write_text(
        FAKE_TOML.replace('provider = "fake"', 'provider = "fake"\ndimension = 32\nmodel = "other"')
    )
    result = runner.invoke(app, ["query", "hiring", "-w", str(cli_ws)])
    assert result.exit_code == 1 and "kgrag reindex --embeddings" in result.output
    reindexed = runner.invoke(app, ["reindex", "--embeddings", "-w", str(cli_ws)])
    assert reindexed.exit_code == 0, reindexed.output
    assert runner.invoke(app, ["query", "hiring", "-w", str(cli_ws)]).exit_code == 0


def test_internal_errors_exit_2(cli_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kgrag import workspace

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(workspace.Workspace, "status", boom)
    result = CliRunner().invoke(app, ["status", "-w", str(cli_ws)])
    assert result.exit_code == 2 and "--debug" in result.output


def test_missing_path_and_empty_workspace_are_user_errors(cli_ws: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["index", "/no/such/dir", "-w", str(cli_ws)])
    assert missing.exit_code == 1 and "no such file or directory" in missing.output
    empty = runner.invoke(app, ["query", "anything?", "-w", str(cli_ws)])
    assert empty.exit_code == 1 and "kgrag index" in empty.output
    cost = runner.invoke(app, ["cost", "-w", str(cli_ws)])
    assert cost.exit_code == 0 and "no LLM calls" in cost.output
