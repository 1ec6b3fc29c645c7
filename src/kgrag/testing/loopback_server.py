"""The set-up the small scripted HTTP servers share: a threading HTTP server on a free 127.0.0.1 port,
served from a daemon thread between ``__enter__`` and ``__exit__``, whose POST requests go to the
subclass's :meth:`LoopbackServer.answer` with the raw request body.

    class Echo(LoopbackServer):
        def answer(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
            handler.send_response(200)
            ...

    with Echo() as server:
        client = OpenAICompatibleProvider(server.base_url)
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class LoopbackServer:
    """A server on 127.0.0.1 (port chosen by the system) that hands every POST to :meth:`answer`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                owner.answer(self, self.rfile.read(int(self.headers.get("content-length", "0"))))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (``…/v1``) of this server."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def answer(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        """Write the reply to one POST request whose body was ``raw``."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
