"""The MCP tools in-process with the SDK's client: read-only by default, `index` only when allowed, and
bad arguments answered as tool errors of one line."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'kgrag[server]')")
from mcp import Client

from kgrag.server.mcp_tools import build_mcp_server


def _run(ws: Workspace, allow_index: bool, calls: list[tuple[str, dict[str, Any]]]) -> tuple[set[str], list[Any]]:
    async def session() -> tuple[set[str], list[Any]]:
        async with Client(build_mcp_server(ws, allow_index=allow_index)) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            return tools, [await client.call_tool(name, args) for name, args in calls]

    return asyncio.run(session())


def test_the_tools_are_read_only_unless_indexing_is_allowed(empty_ws: Workspace) -> None:
    tools, (refused,) = _run(empty_ws, False, [("index", {"paths": [str(SAMPLE_DOCS / "team-apps.md")]})])
    assert "index" not in tools and refused.is_error
    assert empty_ws.documents.counts().get("indexed", 0) == 0
    tools, (report, listed) = _run(
        empty_ws, True, [("index", {"paths": [str(SAMPLE_DOCS / "team-apps.md")]}), ("list_documents", {})]
    )
    assert "index" in tools and not report.is_error
    assert report.structured_content["documents_new"] == 1
    assert [d["title"] for d in listed.structured_content["documents"]] == ["Apps Team"]


def test_bad_arguments_are_one_line_tool_errors(sample_served: Workspace, tmp_path: Path) -> None:
    _, results = _run(
        sample_served,
        True,
        [
            ("search", {"query": "Heron", "k": 0}),
            ("list_documents", {"limit": 0}),
            ("graph_neighbours", {"entity": "zzzz-no-such-entity-zzzz"}),
            ("index", {"paths": [str(tmp_path / "missing")]}),
            ("ask", {"question": "   "}),
        ],
    )
    for result in results:
        assert result.is_error
        text = result.content[0].text
        assert "\n" not in text and "Traceback" not in text, text
