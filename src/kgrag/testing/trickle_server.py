"""An OpenAI-compatible endpoint that answers every chat request correctly but a byte at a time.

Each byte arrives well within any per-read timeout, so only a deadline on the whole request stops a
client from waiting for the full reply (``llm.timeout_s`` is such a deadline). Counts the bytes it
managed to send, so a test can tell the client gave up mid-reply.

    with TrickleServer(gap_s=0.1) as server:
        provider = OpenAICompatibleProvider(server.base_url, timeout_s=1)
"""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler

from kgrag.testing.loopback_server import LoopbackServer

REPLY_TEXT = "a slow but valid reply"


def _reply() -> bytes:
    body = {
        "choices": [{"message": {"role": "assistant", "content": REPLY_TEXT}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5},
    }
    return json.dumps(body).encode("utf-8")


class TrickleServer(LoopbackServer):
    """A chat endpoint on 127.0.0.1 sending each reply one byte every ``gap_s`` seconds."""

    def __init__(self, gap_s: float = 0.1) -> None:
        super().__init__()
        self.gap_s = gap_s
        self.bytes_sent = 0
        self.requests = 0

    def answer(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        with self._lock:
            self.requests += 1
        self._trickle(handler)

    def _trickle(self, handler: BaseHTTPRequestHandler) -> None:
        data = _reply()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        try:
            for byte in data:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                with self._lock:
                    self.bytes_sent += 1
                time.sleep(self.gap_s)
        except (BrokenPipeError, ConnectionResetError):
            return

    @property
    def reply_size(self) -> int:
        return len(_reply())
