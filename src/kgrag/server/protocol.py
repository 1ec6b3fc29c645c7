"""uvicorn's HTTP protocol with deadlines on request headers and on request bodies.

uvicorn closes idle keep-alive connections, but a connection that opens and then sends its headers a
byte at a time (or nothing at all) is kept forever; a few hundred of those exhaust the server's sockets
(a "slowloris" attack). The protocol here arms a timer when a connection opens and when each request
begins, and closes the connection if the headers are not complete in time; ``max_connections`` in
``[server]`` (uvicorn's ``limit_concurrency``) bounds how many may be open meanwhile. The same trick
works on the body: headers that promise a large body followed by a byte every few seconds hold the
connection and the handler waiting on it. So when the headers are complete a second timer gives the
whole body ``body_timeout_s``; a body still incomplete then has its connection closed (the handler sees
the client leave, and an upload in progress is discarded, as for any dropped connection).
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from typing_extensions import TypedDict

from kgrag.config import ServerConfig


class HeaderDeadline:
    """The deadlines, mixed into uvicorn's httptools protocol (which provides ``loop``, ``transport`` and the
    parser callbacks); ``header_timeout_s`` and ``body_timeout_s`` are set per server by
    :func:`header_deadline_protocol`."""

    header_timeout_s = 10.0
    body_timeout_s = 60.0
    _deadline: asyncio.TimerHandle | None = None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport

    def _arm(self, timeout_s: float | None = None) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(timeout_s or self.header_timeout_s, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)  # type: ignore[misc]

    def on_message_begin(self) -> None:
        super().on_message_begin()  # type: ignore[misc]
        self._arm()

    def on_headers_complete(self) -> None:
        self._arm(self.body_timeout_s)  # the body's deadline replaces the headers'
        super().on_headers_complete()  # type: ignore[misc]

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()  # type: ignore[misc]


def header_deadline_protocol(
    timeout_s: float, body_timeout_s: float = 60.0
) -> type[asyncio.Protocol] | Literal["auto"]:
    """uvicorn's httptools protocol closing connections whose headers take over ``timeout_s`` seconds or
    whose body takes over ``body_timeout_s``; ``"auto"`` (no deadline) where httptools is not installed."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - uvicorn[standard] brings httptools
        return "auto"
    settings = {"header_timeout_s": timeout_s, "body_timeout_s": body_timeout_s}
    return type("HeaderDeadlineProtocol", (HeaderDeadline, HttpToolsProtocol), settings)


class UvicornOptions(TypedDict):
    """The keyword arguments of ``uvicorn.Config`` that :func:`uvicorn_options` sets."""

    http: type[asyncio.Protocol] | Literal["auto"]
    limit_concurrency: int
    timeout_keep_alive: int
    server_header: bool


def uvicorn_options(limits: ServerConfig) -> UvicornOptions:
    """The uvicorn settings `kgrag serve` runs with under ``limits`` (tests start servers with the same)."""
    return {
        "http": header_deadline_protocol(limits.header_timeout_s, limits.body_timeout_s),
        "limit_concurrency": limits.max_connections,
        "timeout_keep_alive": 5,
        "server_header": False,
    }
