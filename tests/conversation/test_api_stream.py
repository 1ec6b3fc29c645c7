"""The HTTP API's streamed answers and conversations, over a workspace whose LLM is the fake OpenAI server:
the SSE stream's deltas add up to the answer ``POST /query`` gives, its final events carry the citations
and the trace, and a conversation id makes a follow-up a rewritten, stored turn."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install 'kgrag[server]')")

from fastapi.testclient import TestClient

from kgrag import Workspace
from kgrag.server import create_app
from kgrag.testing import FakeOpenAIServer

QUESTION = "Who leads the Platform team?"


def events(body: str) -> list[tuple[str, Any]]:
    """``(event name, payload)`` of each event of a server-sent-events body."""
    found = []
    for block in body.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in lines:
            found.append((lines.get("event", ""), json.loads(lines["data"])))
    return found


@pytest.fixture
def api(llm_ws: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("KGRAG_LLM__CACHE_ENABLED", "false")  # every answer asks the server
    with Workspace.open(llm_ws) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"s": ws})) as client:
        yield client


def _stream(api: TestClient, body: dict[str, Any]) -> list[tuple[str, Any]]:
    with api.stream("POST", "/v1/workspaces/s/query/stream", json=body) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        return events("".join(response.iter_text()))


def test_the_sse_stream_adds_up_to_the_unstreamed_answer_and_ends_with_citations_and_trace(
    api: TestClient, llm_server: FakeOpenAIServer
) -> None:
    plain = api.post("/v1/workspaces/s/query", json={"question": QUESTION}).json()
    streamed = _stream(api, {"question": QUESTION})
    assert llm_server.stats.streams == 1 and llm_server.stats.chat_requests == 2
    names = [name for name, _ in streamed]
    deltas = [payload["text"] for name, payload in streamed if name == "delta"]
    assert len(deltas) > 3 and names == ["delta"] * len(deltas) + ["citations", "trace", "result"]
    assert "".join(deltas) == plain["answer"]
    citations, trace, result = (payload for _, payload in streamed[-3:])
    assert citations["citations"] == plain["citations"] and citations["citations"]
    assert [p["chunk_id"] for p in citations["passages"] if p["cited"]] == plain["citations"]
    assert [s["step"] for s in trace["trace"]] == [s["step"] for s in plain["trace"]]
    assert {k: result[k] for k in ("answer", "citations", "mode")} == {
        k: plain[k] for k in ("answer", "citations", "mode")
    }


def test_a_conversation_id_rewrites_the_follow_up_and_stores_the_turns(api: TestClient) -> None:
    first = _stream(api, {"question": "Which team owns Kestrel?", "conversation_id": "new"})[-1][1]
    conversation = first["conversation_id"]
    assert conversation.startswith("conv-")
    follow = api.post("/v1/workspaces/s/query", json={"question": "and who leads it?", "conversation_id": conversation})
    result = follow.json()
    assert follow.status_code == 200 and result["standalone_question"] == "and who leads it (Kestrel)?"
    assert "Rui Carvalho" in result["answer"] and result["trace"][0]["step"] == "rewrite"
    listed = api.get("/v1/workspaces/s/conversations").json()["conversations"]
    assert [(c["id"], c["turns"]) for c in listed] == [(conversation, 2)]
    stored = api.get(f"/v1/workspaces/s/conversations/{conversation}").json()
    assert [t["question"] for t in stored["turns"]] == ["Which team owns Kestrel?", "and who leads it?"]
    deleted = api.delete(f"/v1/workspaces/s/conversations/{conversation}", headers={"X-Kgrag-Request": "1"})
    assert deleted.status_code == 200
    assert api.get(f"/v1/workspaces/s/conversations/{conversation}").status_code == 404
    missing = api.post("/v1/workspaces/s/query/stream", json={"question": "x", "conversation_id": conversation})
    assert missing.status_code == 404 and "no conversation" in missing.json()["error"]["message"]
