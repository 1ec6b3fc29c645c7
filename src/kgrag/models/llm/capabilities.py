"""What an OpenAI-compatible server can do: its JSON modes and its context window, probed once per endpoint.

Local servers differ in exactly the two things structured calls depend on:

* **JSON modes.** OpenAI, vLLM, LM Studio and recent Ollama take ``response_format`` ``json_schema``;
  llama-cpp-python's server rejects it (HTTP 500, "Input should be 'text' or 'json_object'") and takes a
  schema only as ``{"type": "json_object", "schema": ...}``; some take only plain ``json_object``.
  With ``llm.json_mode = "auto"`` the provider starts at the strongest mode and steps down the
  :data:`JSON_LADDER` the first time a server rejects one, remembering the verdict so the rejected mode is
  never sent to that endpoint again.
* **The context window.** Read where the server tells it: llama.cpp's ``/props`` (``n_ctx``), vLLM's
  ``/v1/models`` (``max_model_len``), Ollama's ``/api/show`` (``num_ctx``; Ollama serves 2048 tokens when the
  model sets none). llama-cpp-python's server says nothing until a request meets the window: an error
  naming it (:func:`window_in_error`), or a reply stopped for length before its ``max_tokens``
  (:func:`window_from_reply`). A window learned so is kept in the profile and used from the next command on.

The :class:`ServerProfile` is plain data kept per endpoint and model; the workspace stores it in its meta
table (:func:`profile_key`), so the next command neither probes nor repeats a rejected request.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import JsonValue

if TYPE_CHECKING:
    import httpx

T = TypeVar("T")

JSON_LADDER = ("json_schema", "json_object_schema", "json_object", "off")
OLLAMA_DEFAULT_WINDOW = 2048
PROBE_TIMEOUT_S = 3.0
CONTEXT_STEP = 256  # llama.cpp pads its context size to a multiple of this
PROFILE_MAX_AGE_S = 3600.0  # a restarted server may serve another window: probe again after an hour
_WINDOW_IN_ERROR = (
    re.compile(r"maximum context length is (\d+)", re.IGNORECASE),
    re.compile(r"exceeds? (?:the )?context (?:window|size|length) of (\d+)", re.IGNORECASE),
    re.compile(r"context (?:window|size|length) (?:is|of) (\d+)", re.IGNORECASE),
    re.compile(r"n_ctx[\"']?\s*[:=]\s*(\d+)", re.IGNORECASE),
)
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "'text' or", "grammar", "schema")


@dataclass
class ServerProfile:
    """What one endpoint + model is known to accept; ``rejected`` JSON modes are never sent again."""

    server: str = "unknown"
    context_window: int | None = None
    rejected: list[str] = field(default_factory=list)
    accepted: str | None = None  # the JSON mode the server took (auto mode sends it without further trials)
    examples: bool | None = None  # whether the model needs worked examples (None: not probed yet)
    probed_at: float = 0.0

    def json_mode(self, wanted: str) -> str:
        """The mode to send for ``wanted`` (``auto`` or a fixed mode): the first one not rejected."""
        if wanted != "auto":
            return wanted
        return next((mode for mode in JSON_LADDER if mode not in self.rejected), "off")

    def reject(self, mode: str) -> None:
        if mode not in self.rejected and mode != "off":
            self.rejected.append(mode)

    def fresh(self, now: float) -> bool:
        return now - self.probed_at < PROFILE_MAX_AGE_S

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> ServerProfile | None:
        """The stored profile, or None when absent or unreadable (it is then probed afresh)."""
        if not text:
            return None
        try:
            data = json.loads(text)
            window = data.get("context_window")
            return cls(
                server=str(data.get("server", "unknown")),
                context_window=int(window) if isinstance(window, int) and window > 0 else None,
                rejected=[str(m) for m in data.get("rejected", []) if m in JSON_LADDER],
                accepted=data.get("accepted") if data.get("accepted") in JSON_LADDER else None,
                probed_at=float(data.get("probed_at", 0.0)),
                examples=data.get("examples") if isinstance(data.get("examples"), bool) else None,
            )
        except (ValueError, TypeError, AttributeError):
            return None


def profile_key(base_url: str, model: str) -> str:
    """The meta-table key of one endpoint + model's profile."""
    return f"llm_profile:{base_url.rstrip('/')}|{model}"


def response_format_for(mode: str, name: str, schema: dict[str, JsonValue] | None) -> dict[str, JsonValue] | None:
    """The ``response_format`` request field of one JSON mode (None: rely on the prompt alone)."""
    if mode == "json_schema" and schema is not None:
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
    if mode == "json_object_schema" and schema is not None:
        return {"type": "json_object", "schema": schema}
    if mode in ("json_object", "json_object_schema", "json_schema"):
        return {"type": "json_object"}
    return None


def mode_of(response_format: object) -> str:
    """Which :data:`JSON_LADDER` mode a ``response_format`` value is."""
    if not isinstance(response_format, dict):
        return "off"
    kind = response_format.get("type")
    if kind == "json_schema":
        return "json_schema"
    if kind == "json_object":
        return "json_object_schema" if "schema" in response_format else "json_object"
    return "off"


def rejects_format(status: int, detail: str) -> bool:
    """Whether an error response says the server does not take the request's ``response_format``."""
    if status not in (400, 415, 422, 500, 501):
        return False
    lowered = detail.lower()
    return any(word in lowered for word in _FORMAT_WORDS)


def window_in_error(detail: str) -> int | None:
    """The context window an error message names (OpenAI, vLLM, llama.cpp wordings), if any."""
    for pattern in _WINDOW_IN_ERROR:
        match = pattern.search(detail)
        if match:
            value = int(match.group(1))
            return value if value >= 256 else None
    return None


def window_from_reply(
    finish_reason: str | None, prompt_tokens: int | None, completion_tokens: int | None, max_tokens: object
) -> int | None:
    """The window a reply stopped by: cut for length before its ``max_tokens``, it filled the context.

    llama.cpp sizes its context in multiples of 256 tokens, so a total that is not one is a reply cut for
    another reason (a proxy, a fault) and says nothing about the window.
    """
    if finish_reason != "length" or prompt_tokens is None or completion_tokens is None:
        return None
    if not isinstance(max_tokens, int) or completion_tokens >= max_tokens:
        return None
    window = prompt_tokens + completion_tokens
    return window if window >= 512 and window % CONTEXT_STEP == 0 else None


def _root(base_url: str) -> str:
    """The server root: ``base_url`` without a trailing ``/v1``."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _json(response: httpx.Response) -> Any:
    try:
        return response.json() if response.status_code == 200 else None
    except ValueError:
        return None


def _llama_cpp_props(client: httpx.Client, root: str) -> int | None:
    body = _json(client.get(root + "/props", timeout=PROBE_TIMEOUT_S))
    if not isinstance(body, dict):
        return None
    settings = body.get("default_generation_settings")
    for source in (settings if isinstance(settings, dict) else {}, body):
        value = source.get("n_ctx")
        if isinstance(value, int) and value > 0:
            return value
    return None


def _models(client: httpx.Client, base_url: str, model: str) -> tuple[str, int | None] | None:
    """``("vllm", max_model_len)``, ``("llama-cpp-python", None)``, or None for another server."""
    body = _json(client.get(base_url.rstrip("/") + "/models", timeout=PROBE_TIMEOUT_S))
    entries = body.get("data") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        length = entry.get("max_model_len")
        if isinstance(length, int) and length > 0 and (entry.get("id") == model or len(entries) == 1):
            return "vllm", length
        if entry.get("owned_by") == "me":  # llama-cpp-python's server lists its aliases this way
            return "llama-cpp-python", None  # it tells its window only by meeting it (window_from_reply)
    return None


def _ollama_window(client: httpx.Client, root: str, model: str) -> int | None:
    body = _json(client.post(root + "/api/show", json={"model": model}, timeout=PROBE_TIMEOUT_S))
    if not isinstance(body, dict):
        return None
    parameters = body.get("parameters")
    if isinstance(parameters, str):
        match = re.search(r"num_ctx\s+(\d+)", parameters)
        if match:
            return int(match.group(1))
    return OLLAMA_DEFAULT_WINDOW


def probe_server(client: httpx.Client, base_url: str, model: str, now: float | None = None) -> ServerProfile:
    """A fresh profile of the server at ``base_url``: its kind and context window where it tells them.

    Every look is a short request (``PROBE_TIMEOUT_S``) whose failure only means "not this kind of server";
    nothing here raises for an unreachable server (the first real call reports that, with its retries).
    """
    import httpx

    def look(find: Callable[[], T]) -> T | None:
        try:
            return find()
        except (httpx.HTTPError, ValueError):
            return None

    profile = ServerProfile(probed_at=time.time() if now is None else now)
    root = _root(base_url)
    window = look(lambda: _llama_cpp_props(client, root))
    found = ("llama.cpp", window) if window else look(lambda: _models(client, base_url, model))
    if found is None:
        window = look(lambda: _ollama_window(client, root, model))
        found = ("ollama", window) if window else None
    if found is not None:
        profile.server, profile.context_window = found
    return profile
