"""LLM config section and factory: documented fields, safe defaults, no network for none/scripted."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from kgrag.config import GenerationConfig, KgragConfig, LLMConfig, load_config
from kgrag.core.errors import ConfigError
from kgrag.models.llm import ScriptedProvider, ScriptRule, build_provider, create_llm_client
from kgrag.models.llm.http import OpenAICompatibleProvider


def test_every_field_is_described() -> None:
    for section in (LLMConfig, GenerationConfig):
        for name, field in section.model_fields.items():
            assert field.description, f"{section.__name__}.{name}"
    assert KgragConfig.model_fields["llm"].annotation is LLMConfig


def test_defaults_are_llm_free() -> None:
    cfg = load_config()
    assert cfg.llm.provider == "none" and cfg.llm.cache_enabled
    assert cfg.generation.context_tokens > 0


def test_env_override_and_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGRAG_LLM__MAX_CONCURRENCY", "16")
    assert load_config().llm.max_concurrency == 16
    with pytest.raises(ConfigError, match=r"llm\.provider"):
        load_config(llm={"provider": "gpt"})
    with pytest.raises(ConfigError, match="shares"):
        load_config(generation={"passages_share": 0, "graph_share": 0, "communities_share": 0})


def test_none_and_scripted_never_touch_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("network access")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    none = create_llm_client(LLMConfig())
    assert not none.available
    scripted = create_llm_client(LLMConfig(provider="scripted"), provider=ScriptedProvider([ScriptRule(".", "hi")]))
    assert scripted.chat([{"role": "user", "content": "x"}], stage="t").text == "hi"


def test_api_key_is_read_when_the_client_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-test")
    own = {"api_key_env": "MY_LLM_KEY", "api_key_header": "api-key"}
    cfg = LLMConfig(provider="openai", model="m", providers={"openai": own})
    client = create_llm_client(cfg)
    provider = client.runner.provider
    assert isinstance(provider, OpenAICompatibleProvider)
    assert provider._client.headers["api-key"] == "sk-test"
    client.close()


def test_provider_names_come_from_the_registry() -> None:
    with pytest.raises(ConfigError, match=r"llm\.provider.*unknown LLM provider 'gpt'.*none, openai, scripted"):
        load_config(llm={"provider": "gpt"})
    assert "`none`" in (LLMConfig.model_fields["provider"].description or "")  # docs list the built-ins


def test_build_provider_creates_through_the_registry() -> None:
    assert build_provider(LLMConfig()).name == "none"
    assert isinstance(build_provider(LLMConfig(provider="scripted")), ScriptedProvider)
    assert isinstance(build_provider(LLMConfig(provider="openai", model="m")), OpenAICompatibleProvider)
