"""Hand edits of the graph through the API and the CLI: rename, describe, merge, delete a relation;
each logged, undoable with `kgrag graph undo-denoise`, and kept when the documents are indexed again."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.conftest import SAMPLE_DOCS
from tests.graph.graph_fakes import WordExtractor
from tests.server.conftest import build_workspace
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app as cli_app
from kgrag.server import create_app

DOCS = ("team-platform.md", "company-overview.md")
G = "/v1/workspaces/w/graph"


def _reindex(path: Path, docs: Path) -> None:
    with Workspace.open(path, graph={"extractor": "nlp"}) as ws:
        ws.indexing.registries.extractors.register("nlp", lambda *_: WordExtractor(), replace=True)
        ws.index([docs])


@pytest.fixture
def built(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in DOCS:
        shutil.copy(SAMPLE_DOCS / name, docs / name)
    build_workspace(tmp_path / "ws", [docs])
    return tmp_path


@pytest.fixture
def client(built: Path) -> Iterator[TestClient]:
    with Workspace.open(built / "ws") as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
        yield c


def _entity(client: TestClient, name: str) -> dict[str, Any]:
    found = client.get(f"{G}/entities", params={"q": name}).json()
    return next(e for e in found if e["name"] == name)


def _edit(client: TestClient, op: str, target: str, value: str = "") -> dict[str, Any]:
    response = client.post(f"{G}/edits", json={"op": op, "target": target, "value": value})
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_edits_are_logged_and_kept_when_the_documents_are_indexed_again(built: Path, client: TestClient) -> None:
    hub = max(client.get(f"{G}/entities", params={"q": "a", "limit": 200}).json(), key=lambda e: e["degree"])
    renamed = _edit(client, "rename", hub["id"], "The Renamed Hub")
    assert (renamed["op"], renamed["before"], renamed["after"]) == ("rename", hub["name"], "The Renamed Hub")
    _edit(client, "describe", hub["id"], "Written by hand.")
    hood = client.get(f"{G}/entities/{hub['id']}/neighbourhood", params={"limit": 10}).json()
    other = next(e for e in hood["entities"] if e["id"] != hub["id"])
    relation = next(r for r in hood["relations"] if hub["id"] in (r["source"], r["target"]))
    dropped = _edit(client, "delete-relation", relation["id"])
    assert dropped["before"] and relation["label"] in dropped["before"]
    merged = _edit(client, "merge", hub["id"], other["id"])
    assert merged["before"] == other["name"]
    detail = client.get(f"{G}/entities/{hub['id']}").json()
    assert detail["name"] == "The Renamed Hub" and detail["description"] == "Written by hand."
    assert other["name"] in detail["aliases"]
    assert client.get(f"{G}/entities/{other['id']}").status_code == 404
    log = client.get(f"{G}/edits").json()
    assert [e["op"] for e in log] == ["rename", "describe", "delete_relation", "merge"]
    assert {e["status"] for e in log} == {"applied"}
    missing = client.post(f"{G}/edits", json={"op": "rename", "target": "e-nothing", "value": "x"})
    assert missing.status_code == 404 and "no entity" in missing.json()["error"]["message"]
    # the documents change and are indexed again: every edit still holds
    for path in (built / "docs").iterdir():
        path.write_text(path.read_text(encoding="utf-8") + f"\n\n{hub['name']} met {other['name']} again.\n", "utf-8")
    client.close()
    _reindex(built / "ws", built / "docs")
    with Workspace.open(built / "ws") as ws:
        kept = ws.graph.entity(hub["id"])
        assert kept is not None and kept.entity.name == "The Renamed Hub"
        assert kept.entity.description == "Written by hand."
        assert ws.graph.entity(other["id"]) is None  # new mentions of the merged name land on the hub
        assert relation["id"] not in {r.id for r in ws.store.graph.relations()}


def test_the_cli_edits_lists_and_undoes(built: Path) -> None:
    path = str(built / "ws")
    with Workspace.open(built / "ws") as ws:
        hub = max(ws.graph.search_entities("a", 200), key=lambda e: e.degree)
    runner = CliRunner()
    done = runner.invoke(cli_app, ["graph", "edit", "rename", hub.name, "Hand Named", "-w", path])
    assert done.exit_code == 0, done.output
    assert f"rename {hub.name} → Hand Named" in done.output
    listed = runner.invoke(cli_app, ["graph", "edits", "-w", path])
    assert "applied" in listed.output and "Hand Named" in listed.output
    bad = runner.invoke(cli_app, ["graph", "edit", "rename", "no-such-entity-zz", "X", "-w", path])
    assert bad.exit_code != 0 and "no entity" in bad.output and "Traceback" not in bad.output
    undone = runner.invoke(cli_app, ["graph", "undo-denoise", "-w", path])
    assert undone.exit_code == 0, undone.output
    listed = runner.invoke(cli_app, ["graph", "edits", "-w", path])
    assert "undone" in listed.output
    with Workspace.open(built / "ws") as ws:
        found = ws.graph.entity(hub.id)
        assert found is not None and found.entity.name == hub.name


def _two_entities(path: Path) -> tuple[Any, Any]:
    with Workspace.open(path) as ws:
        first, second = sorted(ws.graph.search_entities("a", 200), key=lambda e: -e.degree)[:2]
    return first, second


def test_the_cli_refuses_a_rename_to_a_name_another_entity_has(built: Path) -> None:
    first, second = _two_entities(built / "ws")
    path = str(built / "ws")
    runner = CliRunner()
    for taken in (second.name, second.name.upper()):  # names match as entity keys do: case folded
        refused = runner.invoke(cli_app, ["graph", "edit", "rename", first.id, taken, "-w", path])
        lines = refused.output.strip().splitlines()
        assert refused.exit_code == 1 and len(lines) == 1, refused.output
        assert second.id in lines[0] and "kgrag graph edit merge" in lines[0]
    with Workspace.open(built / "ws") as ws:
        kept = ws.graph.entity(first.id)
        assert kept is not None and kept.entity.name == first.name and ws.graph.edits() == []


def test_the_api_refuses_a_rename_to_a_name_another_entity_has(built: Path) -> None:
    first, second = _two_entities(built / "ws")
    with Workspace.open(built / "ws") as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
        refused = c.post(f"{G}/edits", json={"op": "rename", "target": first.id, "value": second.name})
        assert refused.status_code == 400, refused.text
        message = refused.json()["error"]["message"]
        assert second.id in message and "kgrag graph edit merge" in message
        assert c.get(f"{G}/edits").json() == []
