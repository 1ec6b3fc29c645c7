"""The MCP tools over HTTP: ``/mcp/{workspace}`` on ``kgrag serve`` (MCP streamable HTTP).

Each hosted workspace gets its own read-only MCP server (:func:`~kgrag.server.mcp_tools.build_mcp_server`,
never with the ``index`` tool: indexing over HTTP goes through the jobs API) behind one ASGI endpoint,
which applies the rules of every ``/v1`` route before the SDK sees the request: the API key (when the
server has keys), the caller's rate limit, the key's workspace scope. The app-wide middleware still runs
around it: the ``Host`` and cross-site checks, the body limit, and the path scrubber (replies also name
files, not server paths, through the workspace's own scrubber). Sessions are stateless and replies are
plain JSON, so nothing is held between requests and the scrubber sees whole bodies.

Without the ``mcp`` SDK installed the server runs without this endpoint (:func:`mcp_endpoint` is None).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from kgrag.server.deps import caller
from kgrag.server.errors import ApiError, error_response
from kgrag.server.state import ServerState

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

MCP_PATH = "/mcp/{workspace}"
MCP_METHODS = ["POST"]
"""Stateless JSON replies need no GET event stream and no DELETE of a session; other methods get 405."""


class McpEndpoint:
    """ASGI app for :data:`MCP_PATH`: checks the caller, then hands the request to the workspace's MCP
    session manager. :meth:`running` must wrap the app's lifetime (the managers own task groups)."""

    def __init__(self, state: ServerState, managers: dict[str, StreamableHTTPSessionManager]) -> None:
        self.state = state
        self.managers = managers
        self.started = False

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for manager in self.managers.values():
                await stack.enter_async_context(manager.run())
            self.started = True
            try:
                yield
            finally:
                self.started = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = str(scope.get("path_params", {}).get("workspace", ""))
        try:
            who = caller(Request(scope, receive))
            manager = self.managers.get(name)
            if manager is None:
                raise ApiError(404, "not_found", f"no workspace named {name!r}")
            if not who.may_use(name):
                raise ApiError(403, "forbidden", f"this API key may not use workspace {name!r}")
            if not self.started:  # an app used without its lifespan (a test client outside `with`)
                raise ApiError(503, "unavailable", "the MCP endpoint runs only while the server's lifespan does")
        except ApiError as exc:
            await error_response(exc.status, exc.code, exc.message, exc.headers)(scope, receive, send)
            return
        await manager.handle_request(scope, receive, send)


def _manager(hosted: Any, max_question: int) -> StreamableHTTPSessionManager:
    from mcp.server.transport_security import TransportSecuritySettings

    from kgrag.server.mcp_tools import build_mcp_server

    server = build_mcp_server(
        hosted.ws, present=hosted.scrub, name_source=hosted.source_name, max_question=max_question
    )
    # Host and Origin are checked by the app's own guard (server.allowed_hosts), for this path as for /v1.
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return server.session_manager


def mcp_endpoint(state: ServerState) -> McpEndpoint | None:
    """The endpoint over ``state``'s workspaces; None when the ``mcp`` SDK is not installed."""
    try:
        limit = state.limits.max_question_chars
        managers = {name: _manager(hosted, limit) for name, hosted in state.workspaces.items()}
    except ImportError:
        return None
    return McpEndpoint(state, managers)
