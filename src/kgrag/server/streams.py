"""Server-sent events from a blocking answer: the answer runs in a worker thread whose stream sink feeds an
async generator, which the response sends as events while the model writes.

Stopping: when the client goes away (the connection closes: the generator is closed, or a poll finds
the request disconnected), the sink raises :class:`~kgrag.core.errors.StreamCancelled` at the next
delta, which closes the LLM request (:mod:`kgrag.models.llm.streaming`); the call's ledger row says it
was cancelled and nothing is cached.

Event payloads go through the workspace's path scrubber: the JSON middleware that scrubs other responses
does not see a stream.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from fastapi import Request
from fastapi.responses import StreamingResponse
from typing_extensions import TypedDict

from kgrag.core.errors import BudgetExceededError, KgragError, ModelError, StoreUnavailableError, StreamCancelled
from kgrag.core.llm_types import StreamSink

T = TypeVar("T")
Event = tuple[str | None, Any]
"""An event's name (None: a nameless ``data:`` line, as OpenAI streams send) and its JSON payload."""

POLL_S = 0.5
CANCELLED = "the client closed the stream"


def sse(name: str | None, payload: Any) -> str:
    """One server-sent event: ``event:`` (when named) and a ``data:`` line of JSON (``[DONE]`` as is)."""
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return (f"event: {name}\n" if name else "") + f"data: {data}\n\n"


class ErrorDetail(TypedDict):
    status: int
    code: str
    message: str


class ErrorPayload(TypedDict):
    """What an event stream sends when the answer fails (the shape of the server's error responses)."""

    error: ErrorDetail


def _error_payload(exc: BaseException) -> ErrorPayload:
    if isinstance(exc, BudgetExceededError):
        status, code = 429, "budget_exceeded"
    elif isinstance(exc, ModelError):
        status, code = 502, "model_error"
    elif isinstance(exc, StoreUnavailableError):
        status, code = 503, "store_unavailable"
    elif isinstance(exc, KgragError):
        status, code = 400, "invalid_request"
    else:
        logging.getLogger("kgrag.server").error("internal error in a streamed answer", exc_info=exc)
        status, code, exc = 500, "internal_error", RuntimeError("internal error; see the server log")
    return {"error": {"status": status, "code": code, "message": str(exc)}}


class _Bridge:
    """The worker thread's side: deltas, the result or the error, handed to the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.cancelled = threading.Event()

    def put(self, kind: str, value: Any) -> None:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (kind, value))
        except RuntimeError:  # the loop is gone: nobody is listening any more
            self.cancelled.set()

    def sink(self, delta: str) -> None:
        if self.cancelled.is_set():
            raise StreamCancelled(CANCELLED)
        self.put("delta", delta)


@dataclass(frozen=True)
class EventShapes(Generic[T]):
    """The events of a delta, of the result and of an error (its ``{"error": ...}`` payload)."""

    delta: Callable[[str], list[Event]]
    final: Callable[[T], list[Event]]
    error: Callable[[ErrorPayload], list[Event]]

    def of(self, kind: str, value: Any) -> list[Event]:
        if kind == "delta":
            return self.delta(value)
        return self.final(value) if kind == "result" else self.error(_error_payload(value))


def event_stream(
    request: Request,
    run: Callable[[StreamSink], T],
    shapes: EventShapes[T],
    scrub: Callable[[Any], Any],
    opening: Sequence[Event] = (),
) -> StreamingResponse:
    """A ``text/event-stream`` response: the ``opening`` events, then ``run(sink)`` in a thread, each
    delta, then the result or the error, as ``shapes`` writes them."""

    async def events() -> AsyncIterator[str]:
        bridge = _Bridge(asyncio.get_running_loop())

        def work() -> None:
            try:
                bridge.put("result", run(bridge.sink))
            except BaseException as exc:  # reported to the client as an event, never a dropped connection
                bridge.put("error", exc)

        threading.Thread(target=work, name="kgrag-stream", daemon=True).start()
        try:
            for name, payload in opening:
                yield sse(name, payload)
            while True:
                try:
                    kind, value = await asyncio.wait_for(bridge.queue.get(), POLL_S)
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    continue
                for name, payload in shapes.of(kind, value):
                    yield sse(name, scrub(payload))
                if kind != "delta":
                    return
        finally:
            bridge.cancelled.set()

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(events(), media_type="text/event-stream", headers=headers)
