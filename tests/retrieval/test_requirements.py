"""`requires` is checked before a pipeline runs: each missing prerequisite is named with its fix, and
`kgrag pipelines` shows the same checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.config import KgragConfig
from kgrag.core.errors import KgragError
from kgrag.retrieval import Pipeline
from kgrag.retrieval.listing import describe_pipelines
from kgrag.retrieval.requirements import requirement_status
from kgrag.retrieval.steps import BM25Search, Hydrate, TakeTop, UseStream


def _needing(*requires: str):  # type: ignore[no-untyped-def]
    def factory(name: str, config: KgragConfig) -> Pipeline:
        steps = (BM25Search(pool=5), UseStream("bm25"), TakeTop(), Hydrate())
        return Pipeline(name, "needs things", steps, requires=frozenset(requires))

    return factory


def test_missing_graph_says_to_index_with_an_extractor(fake_ws: Workspace) -> None:
    with pytest.raises(KgragError) as caught:
        fake_ws.retrieve("anything", "graph-local")
    message = str(caught.value)
    assert "pipeline 'graph-local' cannot run" in message and "non-empty knowledge graph" in message
    assert "kgrag index" in message and "graph.extractor" in message


def test_missing_embeddings_say_to_index(fake_ws: Workspace) -> None:
    for name in ("dense", "hybrid"):
        with pytest.raises(KgragError, match=r"no chunk embeddings for 'fake:.*'; run `kgrag index PATH`"):
            fake_ws.retrieve("anything", name)
    assert fake_ws.retrieve("anything", "bm25").items == []  # bm25 needs nothing


def test_missing_llm_says_what_to_configure(graph_ws: Workspace) -> None:
    graph_ws.pipelines.register("needs-llm", _needing("llm"), replace=True)
    with pytest.raises(KgragError, match=r"needs an LLM provider other than `none`: llm.provider = none; set \[llm\]"):
        graph_ws.retrieve("anything", "needs-llm")


def test_every_missing_requirement_is_reported_at_once(fake_ws: Workspace) -> None:
    fake_ws.pipelines.register("needy", _needing("llm", "graph", "embeddings", "telepathy"))
    with pytest.raises(KgragError) as caught:
        fake_ws.retrieve("anything", "needy")
    message = str(caught.value)
    for part in ("knowledge graph", "chunk embeddings", "llm.provider = none", "unknown requirement 'telepathy'"):
        assert part in message


def test_met_requirements_let_the_pipeline_run(graph_ws: Workspace) -> None:
    statuses = requirement_status({"graph", "embeddings"}, graph_ws.components.query_context)
    assert [(s.name, s.met, s.message) for s in statuses] == [("embeddings", True, ""), ("graph", True, "")]
    assert graph_ws.retrieve("Who leads the Platform team?", "graph-local", 2).items


def test_the_listing_shows_requirements_and_whether_they_are_met(fake_ws: Workspace) -> None:
    infos = {info.name: info for info in describe_pipelines(fake_ws.pipelines, fake_ws.components.query_context)}
    assert list(infos)[:4] == ["dense", "bm25", "hybrid", "graph-local"]
    assert {"ppr", "paths", "auto", "community", "global"} <= set(infos)
    assert [(r.name, r.met) for r in infos["global"].requirements] == [("communities", False)]
    assert infos["bm25"].ready and not infos["bm25"].requirements
    assert [(r.name, r.met) for r in infos["graph-local"].requirements] == [("graph", False)]
    assert infos["dense"].origin == "builtin" and not infos["dense"].ready


def test_kgrag_pipelines_prints_the_checks(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    runner = CliRunner()
    assert runner.invoke(app, ["init", str(ws)]).exit_code == 0
    (ws / "kgrag.toml").write_text('[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n')
    result = runner.invoke(app, ["pipelines", "-w", str(ws)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "graph (missing)" in result.output and "embeddings (missing)" in result.output
    assert "graph-local: needs a non-empty knowledge graph" in result.output


def test_auto_names_the_command_that_fits_its_policy_as_docs_cli_spells_it(tmp_path: Path) -> None:
    """`kgrag pipelines` describes `auto` with `kgrag tune router`, the spelling docs/cli.md documents."""
    ws = tmp_path / "ws"
    runner = CliRunner()
    assert runner.invoke(app, ["init", str(ws)]).exit_code == 0
    (ws / "kgrag.toml").write_text('[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n')
    result = runner.invoke(app, ["pipelines", "-w", str(ws)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    auto = next(line for line in result.output.splitlines() if "│ auto " in line)
    assert "a policy stored by `kgrag tune router`" in auto and "--router" not in result.output
    documented = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "kgrag tune router -w my-ws" in documented
