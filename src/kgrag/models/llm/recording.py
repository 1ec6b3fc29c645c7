"""Record real exchanges to a JSONL file that :class:`ScriptedProvider.from_file` replays.

Wrap the HTTP provider once against a real endpoint, then run tests and demos offline, byte-for-byte.
Recording changes nothing in how a call is sent: a streamed call is streamed through to the wrapped
provider (and recorded once it ends), and the calls the wrapped provider would stream to stop a
repetition loop (``streams_guarded``, :mod:`kgrag.models.llm.reply_loop`) are streamed here too. A reply
stopped at a loop is recorded as the call comes back, its part before the loop with ``finish_reason``
``loop``, so a replay reads it as the run did.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from kgrag.core.llm_types import ChatRequest, ChatResponse, StreamSink
from kgrag.models.llm.base import ChatProvider
from kgrag.models.llm.reply_loop import LOOP_FINISH, ReplyLooped
from kgrag.models.llm.scripted import replay_key


class RecordingProvider:
    """Passes each request to ``inner`` and appends the successful exchange to ``path``."""

    available = True

    def __init__(self, inner: ChatProvider, path: Path) -> None:
        self.name = inner.name
        self._inner = inner
        self._path = path
        self._lock = threading.Lock()

    @property
    def inner(self) -> ChatProvider:
        """The provider whose exchanges are recorded."""
        return self._inner

    @property
    def streams_guarded(self) -> bool:
        """Whether the wrapped provider streams loop-guarded calls (recording keeps that)."""
        return bool(getattr(self._inner, "streams_guarded", False))

    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self._inner.complete(request)
        self._write(request, response)
        return response

    def stream(self, request: ChatRequest, sink: StreamSink) -> ChatResponse:
        """Stream through the wrapped provider (or hand its whole reply on in one piece when it cannot
        stream); a reply stopped at a repetition loop is recorded as its part before the loop."""
        inner_stream = getattr(self._inner, "stream", None)
        if inner_stream is None:
            response = self.complete(request)
            if response.text:
                sink(response.text)
            return response
        try:
            response = inner_stream(request, sink)
        except ReplyLooped as looped:
            self._write(request, ChatResponse(looped.text, LOOP_FINISH, None, looped.tokens))
            raise
        self._write(request, response)
        return response

    def _write(self, request: ChatRequest, response: ChatResponse) -> None:
        entry = {
            "key": replay_key(request),
            "model": request.model,
            "messages": list(request.messages),
            "params": {k: v for k, v in request.params.items() if k != "response_format"},
            "prompt": request.prompt.name if request.prompt else None,
            "response": response.text,
            "finish_reason": response.finish_reason,
            "usage": [response.prompt_tokens, response.completion_tokens],
        }
        with self._lock, self._path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def close(self) -> None:
        self._inner.close()
