"""`kgrag mcp`: one workspace as MCP tools for an agent, over stdio (the client starts this command).

stdout carries the protocol, so the command prints nothing else there; errors before the server starts
are one line on stderr, as for every command. The tools are in :mod:`kgrag.server.mcp_tools`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from kgrag.cli.errors import guarded_session
from kgrag.cli.options import DebugOpt, WorkspaceOpt, open_workspace
from kgrag.core.errors import KgragError


@guarded_session
def mcp_command(
    workspace: WorkspaceOpt = None,
    allow_index: Annotated[
        bool,
        typer.Option("--allow-index", help="Also offer the `index` tool (index files of this machine)."),
    ] = False,
    debug: DebugOpt = False,
) -> None:
    """Serve the workspace to an MCP client over stdio: tools search, ask, show, list_documents,
    graph_neighbours (and index with --allow-index)."""
    try:
        from kgrag.server.mcp_tools import build_mcp_server
    except ImportError as exc:  # the `mcp` SDK is in the server extra
        raise KgragError(f"`kgrag mcp` needs the MCP SDK: pip install 'kgrag[server]' ({exc})") from exc
    with open_workspace(workspace) as ws:
        if not allow_index:  # nothing to read yet: say so now rather than from every tool
            ws.querying.require_chunks()
        build_mcp_server(ws, allow_index=allow_index).run("stdio")
