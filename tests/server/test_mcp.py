"""kgrag's MCP tools end to end with the ``mcp`` SDK's own client: `kgrag mcp` spawned as a subprocess over
stdio, and the HTTP transport of a running `kgrag serve` (API key rules included), both on a copy of the
sample workspace whose model is the scripted provider."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.server.serve_support import serve

from kgrag import Workspace
from kgrag.config import CONFIG_FILE_NAME

mcp = pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'kgrag[server]')")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

pytestmark = pytest.mark.slow

CITED_Q = "Who leads the Apps team?"
UNCITED_Q = "Where does the Apps team work from?"
TOOLS = {"search", "ask", "show", "list_documents", "graph_neighbours"}
KEY = "mcp-test-key-0123456789"


@pytest.fixture(scope="module")
def mcp_ws(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A copy of the sample workspace answering with the scripted model: a cited reply naming the top
    passage for one question, an uncited one for another. Returns the path, the cited chunk id and its text."""
    path = tmp_path_factory.mktemp("mcp") / "sample"
    shutil.copytree(sample_dir, path)
    with Workspace.open(path) as ws:
        top, text = next((i.id, i.text) for i in ws.querying.retrieve(CITED_Q, k=5).items if i.kind == "chunk")
    rules = path.parent / "rules.jsonl"
    lines = [
        {"match": "Question: Who leads", "response": f"Lucas Moreau leads the Apps team [c:{top}]."},
        {"match": "Question: Where does", "response": "The Apps team works from the Lisbon engineering hub."},
        {"default": "I don't know based on the provided context."},
    ]
    rules.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    toml = path / CONFIG_FILE_NAME
    llm = f'\n[llm]\nprovider = "scripted"\nmodel = "scripted-m"\nproviders.scripted.file = "{rules.as_posix()}"\n'
    toml.write_text(toml.read_text(encoding="utf-8") + llm, encoding="utf-8")
    return path, top, text or ""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HF_HUB_OFFLINE": "1"}


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


async def _session(client: Client, cited_chunk: str) -> dict[str, Any]:
    """What a client does: list the tools, ask two questions, read the cited passage, search, browse."""
    tools = {tool.name for tool in (await client.list_tools()).tools}
    cited = _data(await client.call_tool("ask", {"question": CITED_Q}))
    uncited = _data(await client.call_tool("ask", {"question": UNCITED_Q}))
    shown = _data(await client.call_tool("show", {"id": cited_chunk}))
    found = _data(await client.call_tool("search", {"query": "Apps team Lisbon", "k": 3}))
    docs = _data(await client.call_tool("list_documents", {"limit": 5}))
    graph = _data(await client.call_tool("graph_neighbours", {"entity": "Heron"}))
    missing = await client.call_tool("show", {"id": "c-no-such-id"})
    long = await client.call_tool("ask", {"question": "x" * 4001})
    return {"tools": tools, "cited": cited, "uncited": uncited, "shown": shown, "found": found,
            "docs": docs, "graph": graph, "missing": missing, "long": long}  # fmt: skip


def _check_session(out: dict[str, Any], cited_chunk: str, cited_text: str) -> None:
    assert out["tools"] == TOOLS  # read-only: no index tool without --allow-index
    cited = out["cited"]
    assert cited["answer"].startswith("Lucas Moreau leads the Apps team")
    assert [(c["chunk_id"], c["kind"]) for c in cited["citations"]] == [(cited_chunk, "model-cited")]
    assert cited["citations"][0]["source"]["source"].endswith(".md")
    assert cited["cost"]["prompt_tokens"] > 0 and "line" in cited["cost"]
    uncited = out["uncited"]
    assert uncited["citations"] and all(c["kind"] == "attributed" for c in uncited["citations"])
    assert [s["status"] for s in uncited["sentences"]] == ["attributed"]
    assert out["shown"]["kind"] == "chunk" and cited_text and cited_text in out["shown"]["text"]
    assert out["found"]["passages"] and all(p["source"]["title"] for p in out["found"]["passages"])
    assert out["docs"]["total"] >= 30 and len(out["docs"]["documents"]) == 5
    assert out["graph"]["entities"] and out["graph"]["center"]
    assert out["missing"].is_error and "no passage, document" in out["missing"].content[0].text


def test_mcp_over_stdio_lists_the_tools_and_answers_with_citations(mcp_ws: tuple[Path, str, str]) -> None:
    path, top, text = mcp_ws
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "kgrag.cli", "mcp", "-w", str(path)], env=_env(), cwd=str(path.parent)
    )

    async def run() -> dict[str, Any]:
        async with Client(params) as client:
            return await _session(client, top)

    _check_session(asyncio.run(run()), top, text)


def test_mcp_stdio_refuses_an_empty_workspace_with_one_line(tmp_path: Path) -> None:
    Workspace.init(tmp_path / "empty").close()
    command = [sys.executable, "-m", "kgrag.cli", "mcp", "-w", str(tmp_path / "empty")]
    done = subprocess.run(command, env=_env(), capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert "no indexed documents" in done.stderr and "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def served(mcp_ws: tuple[Path, str, str]) -> Iterator[str]:
    """`kgrag serve` over the workspace (named `sample`) with one API key, on a free loopback port."""
    yield from serve({"sample": mcp_ws[0]}, env={"KGRAG_API_KEYS": KEY}, polls=1200)


def test_mcp_over_http_on_kgrag_serve_with_the_sdk_client(served: str, mcp_ws: tuple[Path, str, str]) -> None:
    import httpx2

    async def run() -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {KEY}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=120) as http,
            Client(streamable_http_client(f"{served}/mcp/sample", http_client=http)) as client,
        ):
            return await _session(client, mcp_ws[1])

    out = asyncio.run(run())
    _check_session(out, mcp_ws[1], mcp_ws[2])
    assert "/" not in out["cited"]["citations"][0]["source"]["source"]  # a file name, never a server path
    assert "/" not in out["shown"]["heading"].split(" · ")[0]  # nor a path relative to the server's directory
    assert out["long"].is_error and "question longer than 4000 characters" in out["long"].content[0].text


def test_mcp_over_http_follows_the_servers_key_and_host_rules(served: str) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    assert httpx.post(f"{served}/mcp/sample", json=hello, headers=headers, timeout=30).status_code == 401
    wrong = {**headers, "Authorization": "Bearer wrong-key-0123456789"}
    assert httpx.post(f"{served}/mcp/sample", json=hello, headers=wrong, timeout=30).status_code == 401
    keyed = {**headers, "Authorization": f"Bearer {KEY}"}
    assert httpx.post(f"{served}/mcp/other", json=hello, headers=keyed, timeout=30).status_code == 404
    rebound = {**keyed, "Host": "evil.example"}
    assert httpx.post(f"{served}/mcp/sample", json=hello, headers=rebound, timeout=30).status_code == 400
