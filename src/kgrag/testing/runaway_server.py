"""An OpenAI-compatible chat endpoint that ignores ``max_tokens`` and can lie about usage.

Each reply is generated a few words at a time and written as it is generated (the JSON body is
streamed, then the connection closes), as a real server does its work; when the client hangs up,
writing fails and generation stops there, as vLLM and llama.cpp abort a request whose client left. The
server keeps its own count of what it generated (whitespace words, like the counting server in
:mod:`.fake_openai_server`), which is what a budget must be judged by.

    with RunawayServer(reply_words=(800, 2400), usage="zero") as server:
        provider = OpenAICompatibleProvider(server.base_url)
        ...
        server.generated_tokens  # prompt words + reply words actually generated
"""

from __future__ import annotations

import json
import random
import time
from http.server import BaseHTTPRequestHandler
from typing import Literal

from kgrag.testing.loopback_server import LoopbackServer

UsageMode = Literal["honest", "zero", "one", "missing"]
WORDS_PER_WRITE = 16


class RunawayServer(LoopbackServer):
    """A chat endpoint on 127.0.0.1 whose replies are ``reply_words`` (a ``(low, high)`` range) long."""

    def __init__(
        self,
        reply_words: tuple[int, int] = (800, 2400),
        *,
        usage: UsageMode = "honest",
        seed: int = 0,
        gap_s: float = 0.001,
    ) -> None:
        super().__init__()
        self.reply_words = reply_words
        self.usage = usage
        self.gap_s = gap_s
        self.requests = 0
        self.prompt_words = 0
        self.reply_words_generated = 0
        self.hung_up = 0  # replies the client stopped reading
        self._rng = random.Random(seed)

    @property
    def generated_tokens(self) -> int:
        """The server's own count of what it was asked and what it generated."""
        with self._lock:
            return self.prompt_words + self.reply_words_generated

    def answer(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        body = json.loads(raw or b"{}")
        prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        with self._lock:
            self.requests += 1
            self.prompt_words += prompt
            length = self._rng.randint(*self.reply_words)
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        try:
            handler.wfile.write(b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "')
            for start in range(0, length, WORDS_PER_WRITE):
                words = min(WORDS_PER_WRITE, length - start)
                handler.wfile.write(b"word " * words)
                handler.wfile.flush()
                with self._lock:
                    self.reply_words_generated += words
                time.sleep(self.gap_s)
            handler.wfile.write(self._tail(prompt, length))
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            with self._lock:
                self.hung_up += 1

    def _tail(self, prompt: int, completion: int) -> bytes:
        figures = {"honest": (prompt, completion), "zero": (0, 0), "one": (1, 1)}.get(self.usage)
        usage = ""
        if figures is not None:
            usage = f', "usage": {{"prompt_tokens": {figures[0]}, "completion_tokens": {figures[1]}}}'
        return ('"}, "finish_reason": "stop"}]' + usage + "}").encode("utf-8")
