"""Streamed chat completions: one ``stream: true`` POST read as server-sent events, deltas handed on as they
arrive, the whole reply assembled into the same :class:`ChatResponse` a non-streamed call returns.

The request the cache and the ledger see is the caller's, unchanged: ``stream`` and ``stream_options`` are
added to the wire body only, so a streamed call and a non-streamed one share one cache key and write the
same ledger row. ``stream_options.include_usage`` asks for the usage block (OpenAI, vLLM, llama.cpp send it
in a last chunk); a server that sends none leaves the counts to the caller's local counter, as for a
non-streamed reply without usage.

Stopping: the sink may raise (the reader went away); the exception leaves the ``with`` block, which
closes the HTTP response and with it the connection, so the server stops generating. ``llm.timeout_s``
bounds the whole stream, as it bounds a non-streamed attempt.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from kgrag.core.llm_types import ChatResponse, StreamSink
from kgrag.models.llm.base import ProviderError

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class Refused:
    """What :func:`read_stream` returns when the server answered the streamed request with an error status:
    its response, read whole, for the caller to learn from (a refused JSON mode, a window it names) or to
    send the request unstreamed."""

    response: httpx.Response


@dataclass
class StreamAssembly:
    """The reply so far: text pieces, the finish reason and the usage block when they come."""

    pieces: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def feed(self, line: str) -> str:
        """Take one line of the event stream; returns the text delta it carried ("" for none)."""
        if not line.startswith("data:"):
            return ""
        data = line[5:].strip()
        if not data or data == "[DONE]":
            return ""
        try:
            chunk = json.loads(data)
        except ValueError as exc:
            raise ProviderError("malformed: unreadable stream chunk", retryable=True) from exc
        if not isinstance(chunk, dict):
            return ""
        self._usage(chunk.get("usage"))
        choices = chunk.get("choices") or []
        if not choices or not isinstance(choices[0], dict):
            return ""
        choice = choices[0]
        if isinstance(choice.get("finish_reason"), str):
            self.finish_reason = choice["finish_reason"]
        delta = choice.get("delta") or {}
        text = delta.get("content") if isinstance(delta, dict) else None
        if text is None or text == "":
            return ""
        if not isinstance(text, str):
            raise ProviderError("malformed: stream delta content is not text", retryable=True)
        self.pieces.append(text)
        return text

    def _usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if isinstance(prompt, int) and not isinstance(prompt, bool) and prompt >= 0:
            self.prompt_tokens = prompt
        if isinstance(completion, int) and not isinstance(completion, bool) and completion >= 0:
            self.completion_tokens = completion

    def response(self) -> ChatResponse:
        return ChatResponse("".join(self.pieces), self.finish_reason, self.prompt_tokens, self.completion_tokens)


def stream_body(body: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """``body`` as a streamed request: the same fields plus ``stream`` and the usage option."""
    return {**body, "stream": True, "stream_options": {"include_usage": True}}


def read_stream(
    client: httpx.Client, body: dict[str, JsonValue], sink: StreamSink, timeout_s: float
) -> ChatResponse | Refused:
    """POST ``body`` streamed and hand each delta to ``sink``; :class:`Refused` when the server answered with
    any status but 200 (nothing reached ``sink``). A server that answers with one JSON body instead of
    events is read as a whole and handed on in one piece."""
    import httpx

    deadline = time.monotonic() + timeout_s
    try:
        with client.stream("POST", "chat/completions", content=json.dumps(stream_body(body))) as reply:
            if reply.status_code != 200:
                return Refused(read_body(reply, deadline, timeout_s))
            if "text/event-stream" not in reply.headers.get("content-type", ""):
                return _whole(read_body(reply, deadline, timeout_s), sink)
            assembly = StreamAssembly()
            for line in reply.iter_lines():
                if time.monotonic() > deadline:
                    raise ProviderError(
                        f"timeout: the stream took over llm.timeout_s = {timeout_s:g} s", retryable=True
                    )
                delta = assembly.feed(line)
                if delta:
                    sink(delta)
            return assembly.response()
    except httpx.TimeoutException as exc:
        raise ProviderError(f"timeout: {type(exc).__name__}", retryable=True) from exc
    except httpx.TransportError as exc:
        raise transport_error(exc, str(client.base_url)) from exc


def transport_error(exc: Exception, base_url: str) -> ProviderError:
    """One attempt that failed below HTTP; one that could not connect at all names the URL it tried."""
    import httpx

    if isinstance(exc, httpx.ConnectError):
        where = base_url.rstrip("/")
        return ProviderError(f"connection: nothing answers at {where} ({exc})", retryable=True, unreachable=True)
    return ProviderError(f"connection: {type(exc).__name__}: {exc}", retryable=True)


def read_body(
    response: httpx.Response, deadline: float, timeout_s: float, feed: Callable[[bytes], object] | None = None
) -> httpx.Response:
    """The whole body of a ``response`` opened with ``client.stream``, read by ``deadline`` (a read-complete
    response, as ``post`` gives). A body that trickles in, each piece well within any per-read timeout, is
    given up on at the deadline (:class:`ProviderError`, retryable), unless it is complete by then. ``feed``
    sees each piece as it arrives (a reply ceiling counting it, which may stop the reading by raising)."""
    import httpx

    if response.is_stream_consumed:  # a transport that read the whole reply already (in-process ones)
        response.read()
        if feed is not None:
            feed(response.content)
        return response
    declared = response.headers.get("content-length", "")
    expected = int(declared) if declared.isdigit() else -1
    chunks: list[bytes] = []
    received = 0
    for chunk in response.iter_raw():
        chunks.append(chunk)
        received += len(chunk)
        if feed is not None:
            feed(chunk)
        if received != expected and time.monotonic() > deadline:  # a complete reply is kept
            raise ProviderError(f"timeout: the reply took over llm.timeout_s = {timeout_s:g} s", retryable=True)
    return httpx.Response(
        response.status_code, headers=response.headers, content=b"".join(chunks), request=response.request
    )


def _whole(reply: httpx.Response, sink: StreamSink) -> ChatResponse:
    try:
        body = reply.json()
        choice = body["choices"][0]
        text = choice["message"].get("content") or ""
        usage = body.get("usage") or {}
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ProviderError(f"malformed: unreadable response body ({type(exc).__name__})", retryable=True) from exc
    if not isinstance(text, str):
        raise ProviderError("malformed: message content is not text", retryable=True)
    if text:
        sink(text)
    assembly = StreamAssembly(finish_reason=choice.get("finish_reason") if isinstance(choice, dict) else None)
    assembly._usage(usage)
    assembly.pieces.append(text)
    return assembly.response()
