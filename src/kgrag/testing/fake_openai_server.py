"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks, with fault injection.

It answers ``POST /v1/chat/completions`` (reply from a pluggable responder, usage included; streamed:
:mod:`kgrag.testing.fake_stream`) and ``POST /v1/embeddings`` (hash embeddings) over HTTP/1.1 keep-alive,
so the client's real transport, timeouts and retries are exercised. Faults come at a rate or in sequence:

* ``rate_limit`` 429 with ``Retry-After`` (and ``retry-after-ms``); ``server_error`` 500;
* ``slow`` reply after ``slow_s`` (beyond the client's timeout); ``disconnect`` close without a reply;
* ``malformed_body`` 200 with invalid JSON; ``truncated`` half the reply with ``finish_reason=length``;
* ``wrong_schema`` a valid JSON reply of the wrong shape; ``non_string_content`` a number as the message
  content; ``null_content`` ``null`` content (an empty reply). These two are used only when named.

``behaviour="llama-cpp-python"`` makes it answer as that project's server does (measured against
``llama-cpp-python[server]`` 0.3.36): ``GET /v1/models`` lists the model ``owned_by: "me"`` and there is no
``/props``; ``response_format`` ``json_schema`` is refused with HTTP 500 ("Input should be 'text' or
'json_object'"), ``json_object`` (with or without ``schema``) is taken; a prompt of ``context_window`` tokens
or more is refused with HTTP 400 naming the window; a reply that would overflow the window, or run past
``max_tokens``, stops there with ``finish_reason: "length"``.

``cut_at_max_tokens=True`` makes the default server honour ``max_tokens`` as hosted APIs do: a reply of that
many cl100k tokens or more (the responder's own, cut or not) stops at ``max_tokens`` with
``finish_reason: "length"``. Without it, a responder's reply goes out whole with ``stop`` (a server that
ignores ``max_tokens``, or a responder that cuts its replies and says nothing).

``reasoning_apart=True`` answers as a server with a reasoning parser does (vLLM ``--reasoning-parser``,
llama.cpp's default): a ``<think>`` block that opens the responder's reply (after any cut at ``max_tokens``)
goes out as ``message.reasoning_content``, the rest as ``content`` (empty when the cut came inside the
thinking), and usage still counts the thinking as completion tokens.

:class:`ServerStats` counts requests, faults, the most requests in flight at once, and request arrival
times, so tests can check concurrency and rate limits from the server's side.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from kgrag.testing.fake_faults import FaultKind, FaultPlan, FaultSchedule, ServerStats
from kgrag.testing.wire import ChatBody, Completion, Reply, ReplyMessage

Responder = Callable[[ChatBody], str]
Extension = Callable[["_Handler", str, bytes], bool]  # more routes: True when it answered (the fake Batch API)
WRONG_SCHEMA_REPLY = '{"unexpected": "shape"}'


def echo_responder(request: ChatBody) -> str:
    """Default reply: the last user message, prefixed so tests can tell it came back."""
    users = [m.get("content", "") for m in request.get("messages", []) if m.get("role") == "user"]
    return "echo: " + (users[-1] if users else "")


def word_count(text: str) -> int:
    """The server's token count: whitespace words (deterministic, no tokenizer needed)."""
    return len(text.split())


Behaviour = Literal["openai", "llama-cpp-python"]
LLAMA_CPP_FORMAT_ERROR = (
    "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
)


class _State:
    def __init__(
        self,
        responder: Responder,
        faults: FaultPlan,
        include_usage: bool,
        latency_s: float,
        behaviour: Behaviour = "openai",
        context_window: int | None = None,
        cut_at_max_tokens: bool = False,
    ) -> None:
        self.responder = responder
        self.cut_at_max_tokens = cut_at_max_tokens
        self.include_usage = include_usage
        self.latency_s = latency_s
        self.behaviour = behaviour
        self.context_window = context_window
        self.lock = threading.Lock()
        self.stats = ServerStats()
        self.set_faults(faults)
        self.extension: Extension | None = None
        self.stream_delay_s = 0.0
        self.reasoning_apart = False

    def set_faults(self, faults: FaultPlan) -> None:
        with self.lock:
            self.faults = faults
            self.schedule = FaultSchedule(faults)

    def begin(self) -> FaultKind | None:
        with self.lock:
            stats = self.stats
            stats.requests += 1
            stats.in_flight += 1
            stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
            stats.arrivals.append(time.monotonic())
            fault = self.schedule.next()
            if fault is not None:
                stats.faults[fault] += 1
            return fault

    def end(self) -> None:
        with self.lock:
            self.stats.in_flight -= 1


class _HTTPServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client killed mid-request (crash tests send SIGKILL) resets its connection: not an error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    daemon_threads = True
    state: _State


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes; no 40 ms ACK stalls
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_GET(self) -> None:
        state = self.server.state
        if state.extension is not None and state.extension(self, "GET", b""):
            return
        if self.path.rstrip("/") == "/v1/models":
            owner = "me" if state.behaviour == "llama-cpp-python" else "fake"
            self._send(200, {"object": "list", "data": [{"id": "model.gguf", "object": "model", "owned_by": owner}]})
        else:
            self._send(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        state = self.server.state
        if state.extension is not None and state.extension(self, "POST", raw):
            return
        fault = state.begin()
        try:
            self._dispatch(state, raw, fault)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (timeout); nothing left to send
        finally:
            state.end()

    def _dispatch(self, state: _State, raw: bytes, fault: FaultKind | None) -> None:
        if self.path.rstrip("/") not in ("/v1/embeddings", "/v1/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})  # as servers without the route do
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"error": {"message": "request body is not JSON"}})
            return
        if self.path.rstrip("/") == "/v1/embeddings":
            with state.lock:
                state.stats.embedding_requests += 1
            from kgrag.testing.fake_embeddings import embeddings_reply

            self._send(200, embeddings_reply(body))
            return
        with state.lock:
            state.stats.chat_requests += 1
        if state.behaviour == "llama-cpp-python" and self._llama_cpp_refusal(state, body):
            return
        if fault is not None and self._transport_fault(state, fault):
            return
        if state.latency_s:
            time.sleep(state.latency_s)
        if body.get("stream") is True:
            self._send_stream(state, body, _completion(body, state, fault))
            return
        self._send(200, _completion(body, state, fault))

    def _send_stream(self, state: _State, body: ChatBody, reply: Completion) -> None:
        from kgrag.testing.fake_stream import send_events, sse_events

        finished = send_events(self, sse_events(reply, body), state.stream_delay_s)
        with state.lock:
            state.stats.streams += 1
            state.stats.streams_aborted += 0 if finished else 1

    def _llama_cpp_refusal(self, state: _State, body: ChatBody) -> bool:
        """Refuse what llama-cpp-python's server refuses; True when a refusal was sent."""
        fmt = body.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") not in (None, "text", "json_object"):
            with state.lock:
                state.stats.format_rejections[str(fmt.get("type"))] += 1
            self._send(500, {"error": {"message": LLAMA_CPP_FORMAT_ERROR, "type": "internal_server_error"}})
            return True
        window = state.context_window
        prompt = _prompt_tokens(body)
        if window is not None and prompt >= window:
            message = (
                f"This model's maximum context length is {window} tokens. However, you requested "
                f"{prompt + int(body.get('max_tokens') or 0)} tokens ({prompt} in the messages, "
                f"{body.get('max_tokens')} in the completion). Please reduce the length of the messages or completion."
            )
            self._send(400, {"error": {"message": message, "type": "invalid_request_error"}})
            return True
        return False

    def _transport_fault(self, state: _State, fault: FaultKind) -> bool:
        """Send the faulty reply for faults that replace the response; False for content faults."""
        if fault == "rate_limit":
            wait = state.faults.retry_after_s
            headers = {"Retry-After": f"{wait:g}", "retry-after-ms": str(int(wait * 1000))}
            self._send(429, {"error": {"message": "rate limited (injected)"}}, headers)
        elif fault == "server_error":
            self._send(500, {"error": {"message": "internal error (injected)"}})
        elif fault == "disconnect":
            self.close_connection = True
        elif fault == "malformed_body":
            self._send_raw(200, b'{"id": "chatcmpl-x", "choices": [{"message": {"content": "tru')
        elif fault == "slow":
            time.sleep(state.faults.slow_s)
            return False
        else:
            return False
        return True

    def _send(self, status: int, payload: Reply, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode("utf-8"), headers)

    def _send_raw(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _prompt_tokens(body: ChatBody) -> int:
    return sum(word_count(str(m.get("content", ""))) for m in body.get("messages", []))


def completion_body(server: FakeOpenAIServer, body: ChatBody) -> Completion:
    """The chat completion ``server`` answers ``body`` with (no fault), as a batch output line carries it."""
    return _completion(body, server._state, None)


def cut_at_max_tokens(text: str, max_tokens: int) -> tuple[str, bool]:
    """``text`` stopped at ``max_tokens`` cl100k tokens, and whether it was (it has that many or more, as
    a server honouring ``max_tokens`` reports ``length`` then)."""
    from kgrag.documents.tokens import TokenCounter

    counter = TokenCounter.for_encoding("cl100k_base")
    tokens = counter.encode(text)
    if len(tokens) < max_tokens:
        return text, False
    return counter.decode(tokens[:max_tokens]), True


def _reasoning_apart(text: str) -> tuple[str, str]:
    """(thinking, answer) of a reply that may open with a ``<think>`` block (cut inside it: no answer)."""
    head = text.lstrip()
    if not head.startswith("<think>"):
        return "", text
    thinking, _, answer = head[len("<think>") :].partition("</think>")
    return thinking.strip(), answer.lstrip()


def _window_cut(text: str, finish: str, body: ChatBody, state: _State, window: int) -> tuple[str, str]:
    """The reply stopped where the window is full (and, as llama.cpp does, at ``max_tokens``)."""
    room = window - _prompt_tokens(body)
    max_tokens = body.get("max_tokens")
    if state.behaviour == "llama-cpp-python" and max_tokens:
        room = min(room, int(max_tokens))
    words = text.split(" ")
    if len(words) > room:
        return " ".join(words[: max(1, room)]), "length"
    return text, finish


def _completion(body: ChatBody, state: _State, fault: FaultKind | None) -> Completion:
    text = state.responder(body)
    finish = "stop"
    if fault == "truncated":
        text, finish = text[: max(1, len(text) // 2)], "length"
    elif fault == "wrong_schema":
        text = WRONG_SCHEMA_REPLY
    if state.cut_at_max_tokens and body.get("max_tokens"):
        text, cut = cut_at_max_tokens(text, int(body.get("max_tokens") or 0))
        finish = "length" if cut else finish
    if state.context_window is not None:
        text, finish = _window_cut(text, finish, body, state, state.context_window)
    content: str | int | None = text
    if fault == "non_string_content":
        content = 12345
    elif fault == "null_content":
        content, text = None, ""
    message: ReplyMessage = {"role": "assistant", "content": content}
    if state.reasoning_apart and isinstance(content, str):
        message["reasoning_content"], message["content"] = _reasoning_apart(content)
    reply: Completion = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if state.include_usage:
        prompt = _prompt_tokens(body)
        completion = word_count(text)
        reply["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    return reply


class FakeOpenAIServer:
    """``with FakeOpenAIServer(responder) as server:`` then point a client at ``server.base_url``."""

    def __init__(
        self,
        responder: Responder = echo_responder,
        faults: FaultPlan | None = None,
        *,
        include_usage: bool = True,
        latency_s: float = 0.0,
        behaviour: Behaviour = "openai",
        context_window: int | None = None,
        stream_delay_s: float = 0.0,
        cut_at_max_tokens: bool = False,
        reasoning_apart: bool = False,
    ) -> None:
        self._state = _State(
            responder, faults or FaultPlan(), include_usage, latency_s, behaviour, context_window, cut_at_max_tokens
        )
        self._state.stream_delay_s = stream_delay_s
        self._state.reasoning_apart = reasoning_apart
        self._server: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def stats(self) -> ServerStats:
        return self._state.stats

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("server not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def set_faults(self, faults: FaultPlan) -> None:
        """Change fault injection while running (e.g. heal the endpoint before a resume)."""
        self._state.set_faults(faults)

    def reset_stats(self) -> None:
        with self._state.lock:
            self._state.stats = ServerStats()

    def start(self) -> FakeOpenAIServer:
        server = _HTTPServer(("127.0.0.1", 0), _Handler)
        server.state = self._state
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def fake_openai_server(responder: Responder = echo_responder, faults: FaultPlan | None = None) -> Iterator[str]:
    """The server as a context manager that yields only its base URL."""
    with FakeOpenAIServer(responder, faults) as server:
        yield server.base_url
