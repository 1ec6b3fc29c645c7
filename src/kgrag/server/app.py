"""The app factory: one FastAPI app over hosted workspaces, with its own state and nothing global.

    app = create_app({"team-a": ws_a, "team-b": ws_b}, ServerConfig(), KeyRing())

The caller owns the workspaces (opens and closes them); the app stops its jobs on shutdown. ``kgrag
serve`` builds one from the command line; tests and benchmarks build them in-process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, cast

from fastapi import APIRouter, Depends, FastAPI

from kgrag import __version__
from kgrag.config import ServerConfig
from kgrag.server import (
    routes_conversations,
    routes_documents,
    routes_entities,
    routes_eval,
    routes_graph,
    routes_graph_edit,
    routes_jobs,
    routes_openai,
    routes_passages,
    routes_query,
    routes_settings,
    routes_system,
)
from kgrag.server.deps import caller
from kgrag.server.errors import install_error_handlers
from kgrag.server.guard import RequestGuardMiddleware, allowed_hosts
from kgrag.server.mcp_http import MCP_METHODS, MCP_PATH, mcp_endpoint
from kgrag.server.metrics import MetricsMiddleware
from kgrag.server.page import mount_docs, mount_page
from kgrag.server.scrub import ScrubMiddleware
from kgrag.server.security import BodyLimitMiddleware, KeyRing
from kgrag.server.state import ServerState
from kgrag.workspace import Workspace

DESCRIPTION = """kgrag's HTTP API: ask, compare pipelines, manage documents and indexing jobs, browse the
graph, read evaluation reports. Every workspace route is under `/v1/workspaces/{workspace}`. When the
server has API keys, send one as `Authorization: Bearer KEY` (or `X-API-Key`). Errors are
`{"error": {"status", "code", "message"}}`. A request that changes something (POST, DELETE) must send a
JSON body, an API key or the `X-Kgrag-Request: 1` header (what a cross-site form cannot send), and `Host`
must name this server."""


def create_app(
    workspaces: Mapping[str, Workspace], limits: ServerConfig | None = None, keys: KeyRing | None = None
) -> FastAPI:
    """An app hosting ``workspaces`` (name → open workspace) under ``limits`` and ``keys``."""
    state = ServerState(limits or ServerConfig(), keys or KeyRing())
    for name, ws in workspaces.items():
        state.host(name, ws)

    mcp = mcp_endpoint(state)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if mcp is None:
            yield
        else:
            async with mcp.running():
                yield
        state.shutdown()

    app = FastAPI(
        title="kgrag", version=__version__, description=DESCRIPTION, lifespan=lifespan, docs_url=None, redoc_url=None
    )
    app.state.kgrag = state
    install_error_handlers(app)
    v1 = APIRouter(prefix="/v1")
    v1.include_router(routes_system.public)
    v1.include_router(routes_system.router)
    v1.include_router(routes_openai.router, dependencies=[Depends(caller)])
    per_workspace = APIRouter(prefix="/workspaces/{workspace}", dependencies=[Depends(caller)])
    per_workspace.include_router(routes_system.workspace_router)
    modules = (
        routes_query,
        routes_conversations,
        routes_documents,
        routes_passages,
        routes_jobs,
        routes_graph,
        routes_graph_edit,
        routes_entities,
        routes_eval,
    )
    for module in (*modules, routes_settings):
        per_workspace.include_router(module.router)
    v1.include_router(per_workspace)
    app.include_router(v1)
    if mcp is not None:  # MCP streamable HTTP, one endpoint per workspace (kgrag.server.mcp_http)
        app.add_route(MCP_PATH, cast(Any, mcp), methods=MCP_METHODS, include_in_schema=False)
    mount_page(app)
    mount_docs(app)
    app.add_middleware(ScrubMiddleware, scrubber=state.scrubber, exempt=frozenset({"/v1/health"}))
    app.add_middleware(BodyLimitMiddleware, limit=state.limits.max_request_bytes)
    app.add_middleware(RequestGuardMiddleware, hosts=allowed_hosts(state.limits.host, state.limits.allowed_hosts))
    app.add_middleware(MetricsMiddleware, metrics=state.metrics)
    return app
