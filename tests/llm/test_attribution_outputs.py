"""Attribution where users see answers: `kgrag query` (text and --json) and the server's /query, over the
sample corpus with a scripted model that cites nothing for one sentence and states a falsehood in another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers import scripted_workspace
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app

QUESTION = "Who leads the Apps team?"  # bm25 finds the org-chart passage that names the lead
RULES = [
    {
        "match": "Question: Who leads the Apps team",
        "response": "The Apps team is led by Lucas Moreau. The team keeps three llamas on the office roof.",
    }
]


@pytest.fixture
def ws_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return scripted_workspace(tmp_path, monkeypatch, RULES)


def test_the_cli_marks_attributed_and_unsupported_sentences(ws_path: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["query", QUESTION, "-w", str(ws_path), "-p", "bm25"])
    assert shown.exit_code == 0, shown.output
    assert "Support" in shown.output
    assert "[attributed → c" in shown.output and "The Apps team is led by Lucas Moreau." in shown.output
    assert "[unsupported] The team keeps three llamas on the office roof." in shown.output
    assert "  attributed" in shown.output  # the passage list marks the attributed passage
    as_json = runner.invoke(app, ["query", QUESTION, "-w", str(ws_path), "-p", "bm25", "--json"])
    answer = json.loads(as_json.output)["answer"]
    assert [s["status"] for s in answer["sentences"]] == ["attributed", "unsupported"]
    assert answer["attributed"] == answer["citations"] and answer["uncited"] is False
    attributed = answer["sentences"][0]["passages"][0]
    assert (
        "Lucas Moreau"
        in json.loads(as_json.output)["retrieval"]["items"][
            [i["id"] for i in json.loads(as_json.output)["retrieval"]["items"]].index(attributed)
        ]["text"]
    )


def test_the_server_returns_sentence_support(ws_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from kgrag.server import create_app

    with Workspace.open(ws_path) as ws, TestClient(create_app({"ws": ws}), base_url="http://127.0.0.1") as client:
        reply = client.post("/v1/workspaces/ws/query", json={"question": QUESTION, "pipeline": "bm25"})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert [s["status"] for s in body["sentences"]] == ["attributed", "unsupported"]
    assert body["attributed"] and set(body["attributed"]) <= set(body["citations"])
    flagged = [p for p in body["passages"] if p["attributed"]]
    assert flagged and all(p["cited"] for p in flagged) and "Lucas Moreau" in flagged[0]["text"]
    assert any("no passage supports" in w for w in body["warnings"])
