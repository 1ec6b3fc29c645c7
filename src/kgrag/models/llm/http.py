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
import time
from typing import TYPE_CHECKING, Any, Literal

from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.models.llm.base import ProviderError
from kgrag.models.llm.retry import parse_retry_after

if TYPE_CHECKING:
    import httpx

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


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
    ) -> None:
        import httpx

        headers = {"Content-Type": "application/json"}
        if api_key:
            headers.update(
                {"Authorization": f"Bearer {api_key}"} if api_key_header == "bearer" else {"api-key": api_key}
            )
        self.base_url = base_url.rstrip("/")
        self._api_key_env = api_key_env
        self._timeout_s = timeout_s
        self._httpx = httpx
        self._client = httpx.Client(
            base_url=self.base_url + "/",
            headers=headers,
            timeout=timeout_s,
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        )

    def complete(self, request: ChatRequest) -> ChatResponse:
        body: dict[str, Any] = {"model": request.model, "messages": list(request.messages), **request.params}
        httpx = self._httpx
        try:
            response = self._post(json.dumps(body))
        except httpx.TimeoutException as exc:
            raise ProviderError(f"timeout: {type(exc).__name__}", retryable=True) from exc
        except httpx.TransportError as exc:
            raise ProviderError(f"connection: {type(exc).__name__}: {exc}", retryable=True) from exc
        if response.status_code != 200:
            raise self._status_error(response, request.model)
        return _parse_completion(response)

    def _post(self, content: str) -> httpx.Response:
        """POST and read the reply within ``timeout_s`` in all (a read-complete response, as ``post`` gives)."""
        deadline = time.monotonic() + self._timeout_s
        with self._client.stream("POST", "chat/completions", content=content) as response:
            declared = response.headers.get("content-length", "")
            expected = int(declared) if declared.isdigit() else -1
            chunks: list[bytes] = []
            received = 0
            for chunk in response.iter_raw():
                chunks.append(chunk)
                received += len(chunk)
                if received != expected and time.monotonic() > deadline:  # a complete reply is kept
                    raise ProviderError(
                        f"timeout: the reply took over llm.timeout_s = {self._timeout_s:g} s", retryable=True
                    )
        return self._httpx.Response(
            response.status_code, headers=response.headers, content=b"".join(chunks), request=response.request
        )

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
            hint = f" Set the {self._api_key_env} variable (llm.api_key_env) to a valid key."
        elif status == 404:
            hint = f" Check llm.model ({model!r}) and llm.base_url ({self.base_url}; most servers end in /v1)."
        elif "context" in detail.lower() or "too long" in detail.lower():
            hint = " The prompt does not fit the model's window: see llm.context_window."
        return ProviderError(
            f"LLM endpoint refused the request (HTTP {status}): {detail}.{hint}",
            retryable=False,
            status=status,
        )

    def close(self) -> None:
        self._client.close()


def _parse_completion(response: httpx.Response) -> ChatResponse:
    """Read the first choice; a body we cannot read is treated as a transient fault (proxies truncate)."""
    try:
        body = response.json()
        choice = body["choices"][0]
        text = choice["message"].get("content") or ""
        usage = body.get("usage") or {}
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ProviderError(f"malformed: unreadable response body ({type(exc).__name__})", retryable=True) from exc
    prompt_tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    completion_tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
    return ChatResponse(
        text=str(text),
        finish_reason=choice.get("finish_reason"),
        prompt_tokens=int(prompt_tokens) if isinstance(prompt_tokens, int) else None,
        completion_tokens=int(completion_tokens) if isinstance(completion_tokens, int) else None,
    )
