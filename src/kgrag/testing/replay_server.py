"""A stand-in server that answers with a recorded real model's replies: a recorded run, replayed.

A run recorded by ``llm.record_file`` (``bench/llm_check.py --record``; ``tests/fixtures/llm_replies/``)
holds every request the model answered, with its reply, finish reason and the server's token counts.
:class:`ReplayServer` answers a chat request with the recorded reply when its messages and temperature
are a recorded request's, and reports the recorded usage (null where none was recorded: a streamed reply
from llama-cpp-python comes without one), so the client, the estimate and the ledger see
what they saw in the recorded run; the rest (the JSON-mode and window discovery) is answered as
llama-cpp-python's server answers it (:class:`~kgrag.testing.fake_openai_server.FakeOpenAIServer`). A
request the recording does not hold gets an empty reply and is counted (``unrecorded``): the replay is
the recorded run only while that count is 0. A streamed request (``stream: true``) is answered with
the recorded reply as events, so a client that stops reading mid-reply reads only part of it. A request
recorded more than once (a retry at a temperature above 0 asked again in a later run) gets its recorded
replies in the order they were recorded, the last one again once they are used up. What the
code decides from the replies (the estimate, the graph) is then the current code's, without the model.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from kgrag.testing.fake_openai_server import FakeOpenAIServer
from kgrag.testing.fake_stream import send_events, sse_events

CHAT_ROUTE = "/v1/chat/completions"
WINDOW_PROBE_CHARS = 60_000  # a request this large is the window discovery's: the stand-in names the window


def _key(messages: object, temperature: object) -> str:
    return json.dumps([messages, float(temperature or 0.0)], sort_keys=True)  # type: ignore[arg-type]


class ReplayServer(FakeOpenAIServer):
    """``with ReplayServer(recording) as server:``; ``server.base_url`` ends in ``/v1``."""

    def __init__(self, recording: Path, context_window: int = 4096) -> None:
        super().__init__(behaviour="llama-cpp-python", context_window=context_window)
        self.replies: dict[str, list[dict[str, Any]]] = {}
        for line in recording.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                key = _key(record["messages"], record["params"].get("temperature"))
                self.replies.setdefault(key, []).append(record)
        self.answered = 0
        self.unrecorded = 0
        self._taking = threading.Lock()  # requests are served on several threads
        self._state.extension = self._route

    def _next(self, key: str) -> dict[str, Any] | None:
        """The next recorded reply to the request of ``key`` (the last one stays), or None."""
        with self._taking:
            recorded = self.replies.get(key)
            if not recorded:
                return None
            return recorded.pop(0) if len(recorded) > 1 else recorded[0]

    def _route(self, handler: Any, method: str, raw: bytes) -> bool:
        if method != "POST" or handler.path.rstrip("/") != CHAT_ROUTE:
            return False
        body = json.loads(raw or b"{}")
        fmt = body.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") not in (None, "text", "json_object"):
            return False  # refused as llama-cpp-python refuses it
        record = self._next(_key(body.get("messages"), body.get("temperature")))
        if record is None and len(json.dumps(body.get("messages"))) > WINDOW_PROBE_CHARS:
            return False
        text, finish, usage = "", "stop", [0, 0]
        if record is None:
            self.unrecorded += 1
        else:
            self.answered += 1
            text, finish, usage = record["response"], record["finish_reason"], record["usage"]
        reply = {
            "id": "chatcmpl-replay",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "local"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
            # a figure not recorded stays null (read as missing): llama-cpp-python streams no usage, and a
            # reply stopped at a loop was recorded with the tokens the client read, which it is charged again
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                      "total_tokens": None if None in usage else sum(usage)},
        }  # fmt: skip
        if body.get("stream") is True:  # as llama.cpp streams it: a word per event, the usage last
            send_events(handler, sse_events(reply, body), self._state.stream_delay_s)  # type: ignore[arg-type]
        else:
            handler._send(200, reply)
        return True
