"""The OpenAI-compatible HTTP provider: one POST to ``{base_url}/chat/completions`` per attempt.

It speaks the wire format with httpx directly rather than through the ``openai`` SDK: the SDK's own
retries would hide attempts from our ledger, and its typed response models reject the small deviations
of local servers (missing ``usage``, ``null`` content) that we want to tolerate. Every failure becomes a
:class:`ProviderError` that says whether retrying can help.

``llm.timeout_s`` bounds the whole attempt, not each read: httpx's timeouts apply per socket operation,
so a server that trickles its reply a few bytes a second would otherwise keep one attempt open for as
long as it likes. The body is read as a stream against a deadline; the headers before it are bounded by
their size limit and the per-read timeout.
"""

from __future__ import annotations

import json
import re
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Literal

from pydantic import JsonValue

from kgrag.core.llm_types import ChatRequest, ChatResponse, StreamSink, wire_messages
from kgrag.models.llm.base import ProviderError
from kgrag.models.llm.capabilities import (
    JSON_LADDER,
    ServerProfile,
    mode_of,
    probe_server,
    rejects_format,
    response_format_for,
    window_from_reply,
    window_in_error,
)
from kgrag.models.llm.reply_ceiling import CEILING_FINISH, ReplyCeiling, ReplyPastCeiling
from kgrag.models.llm.retry import parse_retry_after

if TYPE_CHECKING:
    import httpx

    from kgrag.models.llm.batch_api import BatchAPI

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MIN_REPLY_TOKENS = 64  # below this a shrunk max_tokens leaves no room for a useful reply
LOCAL_SERVERS = frozenset({"llama.cpp", "llama-cpp-python", "ollama", "vllm"})  # the kinds the probe names
_PROMPT_IN_ERROR = re.compile(r"(\d+) in the messages|(\d+) in your prompt|prompt (?:has|is) (\d+) tokens", re.I)


def _error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message", error))[:300]
    return str(error or body)[:300]


class OpenAICompatibleProvider:
    """OpenAI, Azure (``api_key_header="api-key"``), vLLM, Ollama, llama.cpp server, LM Studio."""

    name = "openai"
    available = True

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        api_key_header: Literal["bearer", "api-key"] = "bearer",
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 120.0,
        max_connections: int = 4,
        json_mode: str = "off",
        model: str = "",
    ) -> None:
        import httpx

        headers = {"Content-Type": "application/json"}
        if api_key:
            headers.update(
                {"Authorization": f"Bearer {api_key}"} if api_key_header == "bearer" else {"api-key": api_key}
            )
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._api_key_header: Literal["bearer", "api-key"] = api_key_header
        self._api_key_env = api_key_env
        self._timeout_s = timeout_s
        self._httpx = httpx
        self._client = httpx.Client(
            base_url=self.base_url + "/",
            headers=headers,
            timeout=timeout_s,
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        )
        self.json_mode = json_mode
        self.model = model
        self.profile = ServerProfile()
        self.profile_changed = False
        self._negotiating = threading.Lock()

    def probe(self) -> ServerProfile:
        """Look up the server's kind and context window (see :mod:`.capabilities`); keeps the JSON and
        example verdicts."""
        found = probe_server(self._client, self.base_url, self.model)
        found.rejected, found.accepted = list(self.profile.rejected), self.profile.accepted
        found.examples = self.profile.examples
        self.profile, self.profile_changed = found, True
        return found

    def complete(self, request: ChatRequest) -> ChatResponse:
        """One attempt, its reply read whole (see :meth:`complete_within`)."""
        return self.complete_within(request, None)

    def complete_within(self, request: ChatRequest, ceiling: ReplyCeiling | None) -> ChatResponse:
        """One attempt, adapted to what the server is known to take (JSON mode, window), its reply read only
        up to ``ceiling`` (:mod:`.reply_ceiling`); a rejected JSON mode or a reply room that does not fit
        is corrected and resent at once, each at most once per mode.

        Until the server has taken a JSON mode, structured requests go one at a time, so concurrent workers
        never send a mode the first of them is about to learn is refused.
        """
        with self._turn(request):
            return self._complete(request, ceiling)

    def _turn(self, request: ChatRequest) -> AbstractContextManager[object]:
        """What ``request`` waits for: the negotiating lock while it is structured and the server has not
        taken a JSON mode yet (auto mode), so such requests go one at a time; nothing otherwise."""
        settling = self.json_mode == "auto" and "response_format" in request.params and self.profile.accepted is None
        return self._negotiating if settling else nullcontext()

    @property
    def streams_guarded(self) -> bool:
        """Whether loop-guarded calls (:mod:`.reply_loop`) are streamed: on a local server the probe named,
        where small models loop and the generating is the user's own machine's time."""
        return self.profile.server in LOCAL_SERVERS

    def stream(self, request: ChatRequest, sink: StreamSink) -> ChatResponse:
        """One streamed attempt (:mod:`.streaming`): deltas go to ``sink`` as they arrive.

        Refusals are learnt as :meth:`complete_within` learns them: a refused JSON mode steps down the JSON
        ladder, a window named in an error shrinks the reply room, and the request is streamed again. A
        structured request sent before the server has taken a JSON mode is streamed too (so a guarded first
        call is stopped at a loop like every later one), one at a time like the unstreamed ones; the mode
        is kept as accepted once the server streams a reply for it. A refusal that names neither is sent
        unstreamed, where it is reported, and that reply is handed on in one piece."""
        with self._turn(request):
            return self._stream(request, sink)

    def batch_api(self) -> BatchAPI:
        """The Batch API (``/files``, ``/batches``) of this provider's server, with the same key."""
        from kgrag.models.llm.batch_api import BatchAPI as Api

        return Api(self.base_url, self._api_key, api_key_header=self._api_key_header, timeout_s=self._timeout_s)

    def wire_body(self, request: ChatRequest) -> dict[str, JsonValue]:
        """The JSON body :meth:`complete` would send first (the JSON mode this server takes): a batch line's body."""
        params = dict(request.params)
        self._adapt_format(params)
        return _body(request, params)

    def _complete(self, request: ChatRequest, ceiling: ReplyCeiling | None) -> ChatResponse:
        params = dict(request.params)
        for _ in range(len(JSON_LADDER) + 1):
            self._adapt_format(params)
            try:
                response = self._post(_body(request, params), ceiling)
            except ReplyPastCeiling as cut:
                return ChatResponse("", CEILING_FINISH, None, cut.tokens)
            if response.status_code == 200:
                self._accepted(params.get("response_format"))
                return self._learn(_parse_completion(response), params.get("max_tokens"))
            if not self._corrected(response, params):
                raise self._status_error(response, request.model)
        raise self._status_error(response, request.model)

    def _stream(self, request: ChatRequest, sink: StreamSink) -> ChatResponse:
        from kgrag.models.llm.streaming import Refused, read_stream

        params = dict(request.params)
        for _ in range(len(JSON_LADDER) + 1):
            self._adapt_format(params)
            sent = params.get("response_format")
            streamed = read_stream(self._client, _body(request, params), self._accepting(sent, sink), self._timeout_s)
            if not isinstance(streamed, Refused):
                self._accepted(sent)  # also for a reply with no text
                return self._learn(streamed, params.get("max_tokens"))
            if not self._corrected(streamed.response, params):
                break
        reply = self._complete(request, None)  # not complete(): the caller may hold the negotiating lock
        if reply.text:
            sink(reply.text)
        return reply

    def _accepting(self, sent: object, sink: StreamSink) -> StreamSink:
        """``sink``, keeping ``sent`` as the accepted JSON mode at the first delta: the server took it, even
        when the sink then stops the reply (a loop, a ceiling, a reader gone)."""
        if self.json_mode != "auto" or sent is None or self.profile.accepted is not None:
            return sink

        def accepting(delta: str) -> None:
            self._accepted(sent)
            sink(delta)

        return accepting

    def _accepted(self, sent: object) -> None:
        if self.json_mode == "auto" and sent is not None and self.profile.accepted is None:
            self.profile.accepted, self.profile_changed = mode_of(sent), True

    def _learn(self, reply: ChatResponse, max_tokens: object) -> ChatResponse:
        """Keep the window a reply reveals by filling it (llama-cpp-python tells it no other way)."""
        if self.profile.server != "llama-cpp-python" or self.profile.context_window is not None:
            return reply  # other servers announce their window; a cut reply from them says nothing about it
        window = window_from_reply(reply.finish_reason, reply.prompt_tokens, reply.completion_tokens, max_tokens)
        if window is not None:
            self.profile.context_window, self.profile_changed = window, True
        return reply

    def _post(self, body: dict[str, JsonValue], ceiling: ReplyCeiling | None = None) -> httpx.Response:
        httpx = self._httpx
        try:
            return self._stream_post(json.dumps(body), ceiling)
        except httpx.TimeoutException as exc:
            raise ProviderError(f"timeout: {type(exc).__name__}", retryable=True) from exc
        except httpx.TransportError as exc:
            from kgrag.models.llm.streaming import transport_error

            raise transport_error(exc, self.base_url) from exc

    def _adapt_format(self, params: dict[str, JsonValue]) -> None:
        """In ``auto`` mode, send the strongest JSON mode this server has not rejected."""
        sent = params.get("response_format")
        if self.json_mode != "auto" or sent is None:
            return
        schema = _schema_of(sent)
        inner = sent.get("json_schema", {}) if isinstance(sent, dict) else None
        name = str(inner.get("name", "reply")) if isinstance(inner, dict) else "reply"
        wanted = self.profile.json_mode("auto")
        if mode_of(sent) != wanted:
            fmt = response_format_for(wanted, name, schema)
            if fmt is None:
                params.pop("response_format", None)
            else:
                params["response_format"] = fmt

    def _corrected(self, response: httpx.Response, params: dict[str, JsonValue]) -> bool:
        """Learn from a refusal that names its cause; True when ``params`` now make a request worth sending."""
        detail = _error_detail(response)
        status = response.status_code
        window = window_in_error(detail)
        if window is not None:
            if self.profile.context_window != window:
                self.profile.context_window, self.profile_changed = window, True
            return self._shrink_reply(detail, window, params)
        sent = params.get("response_format")
        if sent is None or not rejects_format(status, detail):
            return False
        mode = mode_of(sent)
        if self.json_mode != "auto":
            raise ProviderError(
                f"the server rejected response_format {mode!r} (HTTP {status}: {detail}). Set llm.json_mode = "
                '"auto" (kgrag then finds the JSON mode this server takes) or "json_object" or "off".',
                retryable=False,
                status=status,
            )
        self.profile.reject(mode)
        self.profile_changed = True
        return True

    def _shrink_reply(self, detail: str, window: int, params: dict[str, JsonValue]) -> bool:
        match = _PROMPT_IN_ERROR.search(detail)
        if match is None:
            return False
        prompt_tokens = int(next(group for group in match.groups() if group))
        room = window - prompt_tokens - 8
        current = params.get("max_tokens")
        if room < MIN_REPLY_TOKENS or (isinstance(current, int) and current <= room):
            return False
        params["max_tokens"] = room
        return True

    def _stream_post(self, content: str, ceiling: ReplyCeiling | None = None) -> httpx.Response:
        """POST and read the reply within ``timeout_s`` in all (a read-complete response, as ``post`` gives);
        a successful reply's content is counted against ``ceiling`` as it arrives, and reading stops past it
        (:class:`ReplyPastCeiling`; leaving the block closes the connection)."""
        from kgrag.models.llm.streaming import read_body

        deadline = time.monotonic() + self._timeout_s
        with self._client.stream("POST", "chat/completions", content=content) as response:
            feed = ceiling.feed if ceiling is not None and response.status_code == 200 else None
            return read_body(response, deadline, self._timeout_s, feed)

    def _status_error(self, response: httpx.Response, model: str) -> ProviderError:
        status = response.status_code
        detail = _error_detail(response)
        if status in RETRYABLE_STATUS or status >= 500:
            return ProviderError(
                f"HTTP {status}: {detail}",
                retryable=True,
                status=status,
                retry_after_s=parse_retry_after(response.headers, time.time()),
            )
        hint = ""
        if status in (401, 403):
            hint = f" Set the {self._api_key_env} variable (llm.providers.openai.api_key_env) to a valid key."
        elif status == 404:
            hint = (
                f" Check llm.model ({model!r}) and llm.providers.openai.base_url ({self.base_url}; most servers "
                "end in /v1)."
            )
        elif "context" in detail.lower() or "too long" in detail.lower():
            window = window_in_error(detail)
            served = f" (the server's window is {window} tokens)" if window else ""
            hint = (
                f" The prompt does not fit the model's window{served}: lower graph.extractors.llm.unit_tokens or "
                "generation.context_tokens, or start the server with a larger window."
            )
        return ProviderError(
            f"LLM endpoint refused the request (HTTP {status}): {detail}.{hint}",
            retryable=False,
            status=status,
        )

    def close(self) -> None:
        self._client.close()


def _body(request: ChatRequest, params: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The JSON body of ``request`` sent with ``params`` (its parameters as adapted to this server)."""
    return {"model": request.model, "messages": wire_messages(request.messages), **params}


def _schema_of(response_format: object) -> dict[str, JsonValue] | None:
    if not isinstance(response_format, dict):
        return None
    inner = response_format.get("json_schema")
    schema = inner.get("schema") if isinstance(inner, dict) else response_format.get("schema")
    return schema if isinstance(schema, dict) else None


def _count(value: object) -> int | None:
    """A usage figure the server reported, or None when it is missing, not an integer, or negative."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _parse_completion(response: httpx.Response) -> ChatResponse:
    """Read the first choice; a body we cannot read is treated as a transient fault (proxies truncate).

    ``content`` must be a string (or null, an empty reply): a number or a list there is a broken reply,
    never text, so it is refused as malformed rather than turned into a string and cached.
    """
    try:
        body = response.json()
        choice = body["choices"][0]
        text = choice["message"].get("content")
        usage = body.get("usage") or {}
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ProviderError(f"malformed: unreadable response body ({type(exc).__name__})", retryable=True) from exc
    if text is not None and not isinstance(text, str):
        raise ProviderError(f"malformed: message content is a {type(text).__name__}, not text", retryable=True)
    finish = choice.get("finish_reason")
    return ChatResponse(
        text=text or "",
        finish_reason=finish if isinstance(finish, str) else None,
        prompt_tokens=_count(usage.get("prompt_tokens")) if isinstance(usage, dict) else None,
        completion_tokens=_count(usage.get("completion_tokens")) if isinstance(usage, dict) else None,
    )
