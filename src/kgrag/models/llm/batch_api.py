"""The OpenAI Batch API over HTTP: upload a JSONL file of requests, create a batch, poll it, read its results.

Spoken with httpx directly, as :mod:`.http` speaks ``/chat/completions``: the shapes are OpenAI's
(``POST /files`` with ``purpose=batch``, ``POST /batches`` with ``input_file_id``, ``endpoint`` and
``completion_window``, ``GET /batches/{id}``, ``GET /batches`` to find a batch by its metadata,
``GET /files/{id}/content`` for the output and error files). A server that has no such routes answers 404
(vLLM, Ollama, llama.cpp serve only live calls): that becomes one :class:`BatchUnsupportedError` line.

Result lines (output and error files alike) are ``{"custom_id", "response": {"status_code", "body"},
"error": {"code", "message"}}``; :func:`parse_result_line` turns one into a :class:`BatchResult`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import JsonValue

from kgrag.core.errors import ModelError
from kgrag.core.llm_types import ChatResponse

if TYPE_CHECKING:
    import httpx

ENDPOINT = "/v1/chat/completions"  # the batch endpoint and each line's url
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
LIST_PAGE = 100


class BatchUnsupportedError(ModelError):
    """The server has no Batch API."""


class BatchAPIError(ModelError):
    """A Batch API call failed (network, status, unreadable body); the run stops, pending batches are kept."""


@dataclass(frozen=True)
class BatchStatus:
    """What ``GET /batches/{id}`` says about one batch."""

    id: str
    status: str
    input_file_id: str = ""
    output_file_id: str | None = None
    error_file_id: str | None = None
    total: int = 0
    completed: int = 0
    failed: int = 0
    errors: tuple[str, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL

    @classmethod
    def from_json(cls, body: dict[str, JsonValue]) -> BatchStatus:
        counts = _object(body.get("request_counts"))
        error_list = _list(_object(body.get("errors")).get("data"))
        errors = tuple(f"{e.get('code', 'error')}: {e.get('message', '')}" for e in error_list if isinstance(e, dict))
        return cls(
            id=str(body["id"]),
            status=str(body.get("status", "")),
            input_file_id=str(body.get("input_file_id") or ""),
            output_file_id=_text(body.get("output_file_id")),
            error_file_id=_text(body.get("error_file_id")),
            total=_number(counts.get("total")),
            completed=_number(counts.get("completed")),
            failed=_number(counts.get("failed")),
            errors=errors,
            metadata={str(k): str(v) for k, v in _object(body.get("metadata")).items()},
        )


def _object(value: JsonValue) -> dict[str, JsonValue]:
    """``value`` when the server sent an object there, else an empty one."""
    return value if isinstance(value, dict) else {}


def _list(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []


def _text(value: JsonValue) -> str | None:
    return str(value) if value else None


def _number(value: JsonValue) -> int:
    return int(value) if isinstance(value, int | float | str) and value else 0


@dataclass(frozen=True)
class BatchResult:
    """One request's outcome in a finished batch: the reply, or why there is none."""

    custom_id: str
    response: ChatResponse | None
    error: str | None = None


class BatchAPI:
    """Files and batches of one OpenAI-compatible server (``base_url`` ends in ``/v1``)."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        api_key_header: Literal["bearer", "api-key"] = "bearer",
        timeout_s: float = 120.0,
    ) -> None:
        import httpx

        headers: dict[str, str] = {}
        if api_key:
            headers = {"Authorization": f"Bearer {api_key}"} if api_key_header == "bearer" else {"api-key": api_key}
        self.base_url = base_url.rstrip("/")
        self._httpx = httpx
        self._client = httpx.Client(base_url=self.base_url + "/", headers=headers, timeout=timeout_s)

    def upload(self, lines: list[dict[str, JsonValue]], name: str) -> str:
        """Upload the request lines as a JSONL file with ``purpose=batch``; returns the file id."""
        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
        body = self._call("POST", "files", files={"file": (name, data, "application/jsonl")}, data={"purpose": "batch"})
        return str(body["id"])

    def create(self, input_file_id: str, window: str, metadata: dict[str, str]) -> BatchStatus:
        payload = {"input_file_id": input_file_id, "endpoint": ENDPOINT, "completion_window": window}
        return BatchStatus.from_json(self._call("POST", "batches", json={**payload, "metadata": metadata}))

    def retrieve(self, batch_id: str) -> BatchStatus:
        return BatchStatus.from_json(self._call("GET", f"batches/{batch_id}"))

    def find(self, key: str, value: str, pages: int = 5) -> BatchStatus | None:
        """The most recent batch whose metadata has ``key = value`` (a batch created by a run killed before
        it could note the id), looking through the newest ``pages`` pages."""
        after: str | None = None
        for _ in range(pages):
            params: dict[str, JsonValue] = {"limit": LIST_PAGE, **({"after": after} if after else {})}
            body = self._call("GET", "batches", params=params)
            page = _list(body.get("data"))
            for item in page:
                if isinstance(item, dict) and _object(item.get("metadata")).get(key) == value:
                    return BatchStatus.from_json(item)
            if not body.get("has_more") or not page:
                return None
            after = str(_object(page[-1]).get("id"))
        return None

    def results(self, file_id: str) -> list[BatchResult]:
        """The lines of an output or error file; an unreadable line is skipped (its request goes live)."""
        response = self._send("GET", f"files/{file_id}/content")
        found = []
        for line in response.text.splitlines():
            if line.strip():
                parsed = parse_result_line(line)
                if parsed is not None:
                    found.append(parsed)
        return found

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, JsonValue]:
        response = self._send(method, path, **kwargs)
        try:
            body = response.json()
        except ValueError as exc:
            raise BatchAPIError(f"Batch API {method} /{path}: the reply is not JSON") from exc
        if not isinstance(body, dict):
            raise BatchAPIError(f"Batch API {method} /{path}: the reply is not a JSON object")
        return body

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._client.request(method, path, **kwargs)
        except self._httpx.HTTPError as exc:
            raise BatchAPIError(f"Batch API {method} {self.base_url}/{path} failed: {type(exc).__name__}") from exc
        if response.status_code in (404, 405) and path.split("/")[0] in ("files", "batches") and method == "POST":
            raise BatchUnsupportedError(
                f"the LLM server at {self.base_url} has no Batch API ({method} /{path} answered "
                f"HTTP {response.status_code}); index without --batch (live calls) or set llm.batch = false"
            )
        if response.status_code >= 400:
            raise BatchAPIError(
                f"Batch API {method} /{path} answered HTTP {response.status_code}: {response.text[:300]}"
            )
        return response

    def close(self) -> None:
        self._client.close()


def parse_result_line(line: str) -> BatchResult | None:
    """One line of an output or error file; None when it has no ``custom_id`` (nothing to attach it to)."""
    try:
        item = json.loads(line)
    except ValueError:
        return None
    if not isinstance(item, dict) or not isinstance(item.get("custom_id"), str):
        return None
    custom_id = item["custom_id"]
    error = item.get("error")
    response = item.get("response")
    if isinstance(error, dict) and error:
        return BatchResult(custom_id, None, f"{error.get('code', 'error')}: {error.get('message', '')}"[:300])
    if not isinstance(response, dict):
        return BatchResult(custom_id, None, "no response")
    status = response.get("status_code")
    if status != 200:
        return BatchResult(custom_id, None, f"HTTP {status}: {str(response.get('body'))[:200]}")
    return _completion(custom_id, response.get("body"))


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _completion(custom_id: str, body: object) -> BatchResult:
    if not isinstance(body, dict):
        return BatchResult(custom_id, None, "unreadable response body")
    try:
        choice = body["choices"][0]
        text = choice["message"].get("content")
        usage = body.get("usage") or {}
    except (KeyError, IndexError, TypeError, AttributeError):
        return BatchResult(custom_id, None, "unreadable response body")
    if text is not None and not isinstance(text, str):
        return BatchResult(custom_id, None, f"message content is a {type(text).__name__}, not text")
    finish = choice.get("finish_reason")
    usage = usage if isinstance(usage, dict) else {}
    reply = ChatResponse(
        text or "",
        finish if isinstance(finish, str) else None,
        _count(usage.get("prompt_tokens")),
        _count(usage.get("completion_tokens")),
    )
    return BatchResult(custom_id, reply)
