"""The fake OpenAI server's streamed replies: a chat completion cut into the server-sent events a real
server sends (a role chunk, a word per chunk, the finish reason, the usage when asked, ``[DONE]``). The
text and usage equal the unstreamed reply's; ``stream_delay_s`` spaces the events so a test can stop a
stream half-way and see the server notice (``ServerStats.streams_aborted``)."""

from __future__ import annotations

import json
import re
import time
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING

from pydantic import JsonValue

if TYPE_CHECKING:
    from kgrag.testing.wire import ChatBody, Completion

_PIECE = re.compile(r"\s*\S+")


def sse_events(reply: Completion, body: ChatBody) -> list[bytes]:
    """``reply`` (an unstreamed completion) as the event lines of its stream, for the request ``body``."""
    choice = reply["choices"][0]
    text = str(choice["message"]["content"] or "")
    base: dict[str, JsonValue] = {
        "id": reply["id"],
        "object": "chat.completion.chunk",
        "created": reply["created"],
        "model": reply["model"],
    }
    chunks: list[dict[str, JsonValue]] = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
    for piece in _PIECE.findall(text):
        chunks.append({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
    options = body.get("stream_options")
    if "usage" in reply and isinstance(options, dict) and options.get("include_usage"):
        usage = reply["usage"]
        counts: dict[str, JsonValue] = {
            "prompt_tokens": usage["prompt_tokens"],
            "completion_tokens": usage["completion_tokens"],
            "total_tokens": usage["total_tokens"],
        }
        chunks.append({**base, "choices": [], "usage": counts})
    return [f"data: {json.dumps(chunk)}\n\n".encode() for chunk in chunks] + [b"data: [DONE]\n\n"]


def send_events(handler: BaseHTTPRequestHandler, events: list[bytes], delay_s: float) -> bool:
    """Write ``events`` as a ``text/event-stream`` body, ``delay_s`` apart; False when the client closed the
    connection before the end (``ServerStats.streams_aborted`` counts those)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.close_connection = True  # no length: the end of the body is the end of the connection
    handler.end_headers()
    try:
        for event in events:
            handler.wfile.write(event)
            handler.wfile.flush()
            time.sleep(delay_s)
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True
