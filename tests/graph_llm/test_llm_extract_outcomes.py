"""What an LLM extraction run tells its user when the model does poorly: the calls answered while slow
units run, a graph with no relation, chunks failing again (and why: a model copying the worked example),
and a graph left empty by failed extraction. Each case is one a 0.5B model on a CPU produced on Google's
code-review guide; the model here is the scripted provider."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.cli.progress_lines import LineProgress
from kgrag.core.progress import SilentProgress
from kgrag.prompts import load_prompt
from kgrag.testing.workspace_toml import write_workspace_toml

REFUSAL = "I cannot help with that."
SHALE = {"name": "Shale", "type": "product", "description": "Shale stores telemetry."}


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Shale\n\nShale stores telemetry for Kestrel.\n", encoding="utf-8")
    return docs


def _replies(tmp_path: Path, reply: str) -> Path:
    """A scripted model answering every request with ``reply``."""
    path = tmp_path / "replies.jsonl"
    path.write_text(json.dumps({"default": reply}) + "\n", encoding="utf-8")
    return path


def _workspace(tmp_path: Path, reply: str) -> Workspace:
    """A workspace (settings given to the API) whose LLM extractor is answered with ``reply``."""
    return Workspace.init(
        tmp_path / "ws",
        embedding={"provider": "fake"},
        llm={"provider": "scripted", "providers": {"scripted": {"file": str(_replies(tmp_path, reply))}}},
        graph={"extractor": "llm", "extractors": {"llm": {"gleaning": False}}},
    )


def _cli_workspace(tmp_path: Path, reply: str) -> str:
    """The same, with its settings in kgrag.toml, for the CLI; returns its path."""
    Workspace.init(tmp_path / "ws").close()
    replies = _replies(tmp_path, reply).as_posix()
    settings = {"embedding.provider": '"fake"', "graph.extractor": '"llm"', "llm.provider": '"scripted"'}
    write_workspace_toml(tmp_path / "ws", {**settings, "llm.providers": f'{{ scripted = {{ file = "{replies}" }} }}'})
    return str(tmp_path / "ws")


def _failure_notes(tmp_path: Path, reply: str) -> tuple[list[str], str]:
    """Index twice with a model answering ``reply``: the first run's notes, the second run's failure note."""
    docs = _docs(tmp_path)
    first, second = SilentProgress(), SilentProgress()
    with _workspace(tmp_path, reply) as ws:
        ws.index([docs], progress=first)
        ws.index([docs], progress=second)
    return first.notes, next(n for n in second.notes if "failed graph extraction" in n)


def test_the_extract_lines_count_the_llm_calls_answered(tmp_path: Path) -> None:
    """A stage's count moves only when a whole unit is done, minutes apart with a small model on a CPU; its
    progress lines also say how many LLM calls were answered, so a slow run is told from a stuck one."""
    docs, out = _docs(tmp_path), io.StringIO()
    with _workspace(tmp_path, json.dumps({"entities": [SHALE], "relations": []})) as ws:
        ws.index([docs], progress=LineProgress(Console(file=out, width=200), interval_s=0.0))
    extract = [line for line in out.getvalue().splitlines() if line.startswith("extract:")]
    assert any(line.endswith("· 1 LLM call answered") for line in extract), extract


def test_a_graph_without_relations_is_said_so_by_index_and_pipelines(tmp_path: Path) -> None:
    """The model's graph of the guide had 10 entities and no relation; `kgrag pipelines` said "graph (ok)"
    and the graph pipelines then lost to hybrid without a word."""
    docs, path = _docs(tmp_path), _cli_workspace(tmp_path, json.dumps({"entities": [SHALE], "relations": []}))
    runner = CliRunner()
    indexed = runner.invoke(app, ["index", str(docs), "-w", path])
    assert indexed.exit_code == 0, indexed.output
    assert "the graph has 1 entity and no relation" in indexed.output
    listed = runner.invoke(app, ["pipelines", "-w", path])
    assert listed.exit_code == 0, listed.output
    assert "graph (ok, but see below)" in listed.output
    assert listed.output.count("the graph has 1 entity and no relation") == 1


def test_a_chunk_that_fails_again_is_said_to_need_more_than_a_rerun(tmp_path: Path) -> None:
    """A unit failed the same way run after run, and "run the same command again to finish" never finished.
    The second failure says that re-running alone may not help, and what can."""
    first, again = _failure_notes(tmp_path, REFUSAL)
    failed = [n for n in first if "failed graph extraction" in n]
    assert failed and "previous run too" not in failed[0]
    assert "1 of them had failed on the previous run too" in again and "kgrag prompts tune" in again
    assert "prompt_examples" not in again


def test_a_model_that_copies_the_example_run_after_run_is_pointed_to_prompt_examples(tmp_path: Path) -> None:
    """The model copied the worked example for the same units on every run; without examples it extracted
    them. The second failure names llm.prompt_examples."""
    first, again = _failure_notes(tmp_path, load_prompt("extract_graph").example_reply)
    assert not any("prompt_examples" in n for n in first)
    assert 'llm.prompt_examples = "auto"' in again


def test_status_names_the_failed_chunks_of_a_graph_left_empty(tmp_path: Path) -> None:
    """The LLM server stopped during the first extraction: `kgrag status` said "graph empty" and nothing
    about the failed chunks or the documents left short of indexed."""
    docs, path = _docs(tmp_path), _cli_workspace(tmp_path, REFUSAL)
    runner = CliRunner()
    indexed = runner.invoke(app, ["index", str(docs), "-w", path])
    assert indexed.exit_code == 3, indexed.output
    shown = runner.invoke(app, ["status", "-w", path])
    assert shown.exit_code == 0, shown.output
    assert "empty · 1 chunk failed extraction" in shown.output
    assert "1 of 1 documents are not fully indexed (graph extraction failed for 1 of their chunks)" in shown.output
