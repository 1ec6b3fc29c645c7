"""Record real exchanges to a JSONL file that :class:`ScriptedProvider.from_file` replays.

Wrap the HTTP provider once against a real endpoint, then run tests and demos offline, byte-for-byte.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.models.llm.base import ChatProvider
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

    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self._inner.complete(request)
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
        return response

    def close(self) -> None:
        self._inner.close()
