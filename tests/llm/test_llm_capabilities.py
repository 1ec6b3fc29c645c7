"""Server capability probing and adaptation, against the wire shapes real servers produce.

Each stub below answers with the bodies and status codes of the real server it stands for (llama.cpp's
``/props``, vLLM's ``/v1/models``, Ollama's ``/api/show``, llama-cpp-python's refusals), through httpx's
mock transport, so the provider's real request and parsing code runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest

from kgrag.config import KgragConfig
from kgrag.core.llm_types import ChatRequest
from kgrag.graph.extract.preflight import fit_to_window, preflight_context_window
from kgrag.graph.extract.settings import llm_settings
from kgrag.models.llm.base import ProviderError
from kgrag.models.llm.capabilities import (
    ServerProfile,
    mode_of,
    probe_server,
    rejects_format,
    window_from_reply,
    window_in_error,
)
from kgrag.models.llm.http import OpenAICompatibleProvider
from kgrag.models.llm.window_fit import fit_answer_to_window
from kgrag.testing.fake_openai_server import LLAMA_CPP_FORMAT_ERROR

Handler = Callable[[httpx.Request], httpx.Response]
SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}}
OK_BODY = {
    "choices": [{"message": {"role": "assistant", "content": '{"a": "b"}'}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5},
}


def _provider(handler: Handler, json_mode: str = "auto") -> OpenAICompatibleProvider:
    provider = OpenAICompatibleProvider("http://server/v1", json_mode=json_mode, model="m")
    provider._client = httpx.Client(transport=httpx.MockTransport(handler), base_url="http://server/v1/")
    return provider


def _structured_request(max_tokens: int = 100) -> ChatRequest:
    fmt = {"type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA, "strict": False}}
    messages = ({"role": "user", "content": "hi"},)
    return ChatRequest(messages, "m", {"response_format": fmt, "max_tokens": max_tokens})


class LlamaCppPython:
    """Refuses json_schema as llama-cpp-python 0.3.36 does; records the formats it was sent."""

    def __init__(self) -> None:
        self.formats: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.formats.append(mode_of(body.get("response_format")))
        if body.get("response_format", {}).get("type") == "json_schema":
            return httpx.Response(500, json={"error": {"message": LLAMA_CPP_FORMAT_ERROR}})
        return httpx.Response(200, json=OK_BODY)


def test_auto_steps_down_to_what_the_server_takes_and_remembers_it() -> None:
    server = LlamaCppPython()
    provider = _provider(server)
    assert provider.complete(_structured_request()).text == '{"a": "b"}'
    assert server.formats == ["json_schema", "json_object_schema"]  # the schema still goes, in llama.cpp's form
    provider.complete(_structured_request())
    assert server.formats[2:] == ["json_object_schema"]  # never json_schema again
    assert provider.profile.rejected == ["json_schema"] and provider.profile.accepted == "json_object_schema"
    restored = ServerProfile.from_json(provider.profile.to_json())
    assert restored is not None and restored.json_mode("auto") == "json_object_schema"


def test_a_fixed_json_mode_the_server_refuses_names_the_setting() -> None:
    provider = _provider(LlamaCppPython(), json_mode="json_schema")
    with pytest.raises(ProviderError) as error:
        provider.complete(_structured_request())
    assert not error.value.retryable  # not "the endpoint looks down": retrying cannot help
    assert "response_format 'json_schema'" in str(error.value) and "llm.json_mode" in str(error.value)


def test_a_server_taking_nothing_falls_back_to_the_prompt_alone() -> None:
    seen: list[object] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body.get("response_format"))
        if "response_format" in body:
            return httpx.Response(400, json={"error": {"message": "response_format is not supported"}})
        return httpx.Response(200, json=OK_BODY)

    provider = _provider(handler)
    provider.complete(_structured_request())
    assert seen[-1] is None and provider.profile.rejected == ["json_schema", "json_object_schema", "json_object"]


def test_a_transient_500_is_not_taken_for_a_refused_format() -> None:
    provider = _provider(lambda r: httpx.Response(500, json={"error": {"message": "CUDA out of memory"}}))
    with pytest.raises(ProviderError) as error:
        provider.complete(_structured_request())
    assert error.value.retryable and provider.profile.rejected == []


def test_a_reply_room_past_the_window_is_shrunk_and_the_window_kept() -> None:
    sent: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body["max_tokens"])
        if body["max_tokens"] + 100 > 1024:  # vLLM's wording when prompt + max_tokens exceed max_model_len
            message = (
                "This model's maximum context length is 1024 tokens. However, you requested 1100 tokens "
                "(100 in the messages, 1000 in the completion). Please reduce the length of the messages or completion."
            )
            return httpx.Response(400, json={"error": {"message": message}})
        return httpx.Response(200, json=OK_BODY)

    provider = _provider(handler, json_mode="off")
    provider.complete(ChatRequest(({"role": "user", "content": "x"},), "m", {"max_tokens": 1000}))
    assert sent == [1000, 1024 - 100 - 8] and provider.profile.context_window == 1024


def test_non_text_content_and_negative_usage_are_refused_not_trusted() -> None:
    bodies = [
        {"choices": [{"message": {"content": 12345}, "finish_reason": "stop"}]},
        {"choices": [{"message": {"content": ["a"]}, "finish_reason": "stop"}]},
    ]
    for body in bodies:
        provider = _provider(lambda r, b=body: httpx.Response(200, json=b), json_mode="off")
        with pytest.raises(ProviderError, match="malformed: message content"):
            provider.complete(ChatRequest(({"role": "user", "content": "x"},), "m", {}))
    lying = {"choices": [{"message": {"content": "ok"}}], "usage": {"prompt_tokens": -500, "completion_tokens": True}}
    reply = _provider(lambda r: httpx.Response(200, json=lying), "off").complete(
        ChatRequest(({"role": "user", "content": "x"},), "m", {})
    )
    assert reply.prompt_tokens is None and reply.completion_tokens is None  # counted locally instead


@pytest.mark.parametrize(
    ("routes", "server", "window"),
    [
        ({"GET /props": {"default_generation_settings": {"n_ctx": 8192}}}, "llama.cpp", 8192),
        ({"GET /v1/models": {"data": [{"id": "m", "max_model_len": 32768}]}}, "vllm", 32768),
        ({"POST /api/show": {"parameters": "stop <eot>\nnum_ctx 16384"}}, "ollama", 16384),
        ({"POST /api/show": {"model_info": {"llama.context_length": 131072}}}, "ollama", 2048),
        ({"GET /v1/models": {"data": [{"id": "/m.gguf", "owned_by": "me"}]}}, "llama-cpp-python", None),
        ({}, "unknown", None),
    ],
)
def test_probe_reads_the_window_where_each_server_tells_it(
    routes: dict[str, Any], server: str, window: int | None
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        body = routes.get(f"{request.method} {request.url.path}")
        return httpx.Response(200, json=body) if body is not None else httpx.Response(404, json={"detail": "no"})

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        profile = probe_server(client, "http://server/v1", "m", now=1.0)
    assert (profile.server, profile.context_window) == (server, window)


def test_window_wordings_and_format_refusals() -> None:
    assert window_in_error("This model's maximum context length is 4096 tokens. However, ...") == 4096
    assert window_in_error("Requested tokens (5000) exceed context window of 2048") == 2048
    assert window_in_error("rate limited") is None
    assert rejects_format(500, LLAMA_CPP_FORMAT_ERROR)
    assert not rejects_format(429, "response_format") and not rejects_format(500, "out of memory")
    assert window_from_reply("length", 3000, 1096, 2400) == 4096  # stopped before max_tokens: window full
    assert window_from_reply("length", 3000, 1000, 2400) is None  # not a context size: cut for another reason
    assert window_from_reply("length", 3000, 2400, 2400) is None  # stopped at max_tokens: says nothing
    assert window_from_reply("stop", 3000, 100, 2400) is None


def test_fit_shrinks_sizes_to_a_small_window_instead_of_refusing() -> None:
    config = KgragConfig.model_validate({"llm": {"provider": "openai", "model": "m"}, "graph": {"extractor": "llm"}})
    with pytest.raises(Exception, match="context_window"):
        preflight_context_window(
            config.model_copy(update={"llm": config.llm.model_copy(update={"context_window": 2048})})
        )
    fitted, notes = fit_to_window(config, 2048)
    preflight_context_window(fitted)  # fits now
    assert llm_settings(fitted).unit_tokens < llm_settings(config).unit_tokens and fitted.llm.max_output_tokens == 512
    assert fitted.generation.context_tokens < config.generation.context_tokens
    assert notes and "2048-token context window" in notes[0] and "graph.extractors.llm.unit_tokens" in notes[0]
    same, none = fit_to_window(config, 131072)
    assert same.graph == config.graph and same.generation == config.generation and not none


def test_fit_counts_the_workspace_answer_prompt_and_resolves_no_schema(tmp_path: Path) -> None:
    """Window fit counts the templates of the prompt the workspace sends (its override directory) and never
    resolves its ``output_schema``: a name only a workspace's registry knows needs no registry here."""
    shipped = (resources.files("kgrag.prompts") / "answer.toml").read_text(encoding="utf-8")
    longer = shipped.replace('output_schema = "text"', 'output_schema = "only_my_workspace_has_it"', 1)
    longer = longer.replace('system = """', 'system = """' + "Read the whole context twice. " * 100, 1)
    assert longer.count("only_my_workspace_has_it") == 1 and longer.count("twice") == 100
    (tmp_path / "answer.toml").write_text(longer, encoding="utf-8")
    llm = {"provider": "openai", "model": "m"}
    shipped_fit, _ = fit_answer_to_window(KgragConfig.model_validate({"llm": llm}), 4096)
    own_fit, _ = fit_answer_to_window(KgragConfig.model_validate({"llm": {**llm, "prompts_dir": str(tmp_path)}}), 4096)
    assert 0 < own_fit.generation.context_tokens < shipped_fit.generation.context_tokens - 400
