"""The LLM providers own their settings: ``[llm.providers.openai]`` (endpoint, key variable, key header) and
``[llm.providers.scripted]`` (the replay file) are validated against the models they register, the flat
``[llm]`` keys of earlier releases are read there with one note each (from kgrag.toml and from KGRAG_*
variables), and a workspace configured either way reaches the endpoint the table names."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from kgrag import Workspace
from kgrag.config import LLMConfig, load_config
from kgrag.core.errors import ConfigError
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.http import OpenAICompatibleProvider
from kgrag.models.llm.provider_settings import OpenAIProviderSettings, ScriptedProviderSettings
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.workspace_toml import write_workspace_toml

KEY_ENV = "KGRAG_PROVIDER_SETTINGS_KEY"


def _toml(path: Path, text: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "kgrag.toml").write_text(text, encoding="utf-8")
    return path


def test_the_provider_tables_are_typed_and_hold_the_defaults(tmp_path: Path) -> None:
    config = load_config(_toml(tmp_path, '[llm.providers.openai]\napi_key_header = "api-key"\n'))
    own = config.llm.entry_settings("providers", "openai", OpenAIProviderSettings)
    assert (own.base_url, own.api_key_env, own.api_key_header) == (
        "https://api.openai.com/v1",
        "OPENAI_API_KEY",
        "api-key",
    )
    assert config.llm.entry_settings("providers", "scripted", ScriptedProviderSettings).file is None


@pytest.mark.parametrize(
    ("table", "key", "message"),
    [
        ("openai", 'base_ur = "http://x/v1"', "unknown setting (settings: base_url, api_key_env, api_key_header)"),
        ("openai", 'api_key_header = "basic"', "Input should be 'bearer' or 'api-key'"),
        ("openai", "base_url = 8080", "expected str, got 8080"),
        ("scripted", 'path = "r.jsonl"', "unknown setting (settings: file)"),
        ("none", "base_url = 1", "unknown setting (settings: none)"),
    ],
)
def test_a_bad_provider_table_is_one_error_naming_the_key(tmp_path: Path, table: str, key: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_toml(tmp_path, f"[llm.providers.{table}]\n{key}\n"))
    assert str(caught.value).endswith(f"llm.providers.{table}.{key.split()[0]}: {message}"), caught.value


def _notes(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "kgrag.config"]


def test_the_flat_keys_are_read_in_the_provider_tables_with_one_note_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    old = '[llm]\nbase_url = "http://old/v1"\napi_key_env = "OLD_KEY"\napi_key_header = "api-key"\n'
    old += 'scripted_file = "r.jsonl"\n'
    with caplog.at_level(logging.WARNING, logger="kgrag.config"):
        config = load_config(_toml(tmp_path, old))
    assert config.llm.model_dump(mode="json")["providers"] == {
        "openai": {"base_url": "http://old/v1", "api_key_env": "OLD_KEY", "api_key_header": "api-key"},
        "scripted": {"file": "r.jsonl"},
    }
    moved = [(f"llm.{key}", f"llm.providers.openai.{key}") for key in ("base_url", "api_key_env", "api_key_header")]
    moved.append(("llm.scripted_file", "llm.providers.scripted.file"))
    assert _notes(caplog) == [
        f"kgrag config: {old} is deprecated; use {new} (read as that for now)" for old, new in moved
    ]


def test_a_key_the_table_sets_itself_wins_over_its_flat_spelling(tmp_path: Path) -> None:
    both = '[llm]\nbase_url = "http://old/v1"\n[llm.providers.openai]\nbase_url = "http://new/v1"\n'
    own = load_config(_toml(tmp_path, both)).llm.entry_settings("providers", "openai", OpenAIProviderSettings)
    assert own.base_url == "http://new/v1"


def test_the_flat_environment_variables_are_read_in_the_tables_too(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("KGRAG_LLM__BASE_URL", "http://env/v1")
    monkeypatch.setenv("KGRAG_LLM__SCRIPTED_FILE", "env.jsonl")
    monkeypatch.setenv("KGRAG_LLM__PROVIDERS__OPENAI__API_KEY_ENV", "ENV_KEY")
    with caplog.at_level(logging.WARNING, logger="kgrag.config"):
        llm = load_config().llm
    openai = llm.entry_settings("providers", "openai", OpenAIProviderSettings)
    assert (openai.base_url, openai.api_key_env) == ("http://env/v1", "ENV_KEY")
    assert llm.entry_settings("providers", "scripted", ScriptedProviderSettings).file == Path("env.jsonl")
    notes = _notes(caplog)
    assert len(notes) == 2 and all("is deprecated; use llm.providers." in note for note in notes), notes


@pytest.mark.parametrize("spelling", ["table", "flat"])
def test_a_workspace_reaches_the_endpoint_its_provider_table_names(
    spelling: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-provider-table")
    prefix = "llm.providers.openai." if spelling == "table" else "llm."
    with FakeOpenAIServer(lambda body: "pong from the table's endpoint") as server:
        Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}).close()
        lines = {
            "embedding.provider": '"fake"',
            "llm.provider": '"openai"',
            "llm.model": '"m"',
            "llm.cache_enabled": "false",
            f"{prefix}base_url": json.dumps(server.base_url),
            f"{prefix}api_key_env": json.dumps(KEY_ENV),
            f"{prefix}api_key_header": '"api-key"',
        }
        with caplog.at_level(logging.WARNING, logger="kgrag.config"):
            ws = Workspace.open(write_workspace_toml(tmp_path / "ws", lines))
        with ws:
            client = ws.components.llm()
            reply = client.chat([{"role": "user", "content": "ping"}], stage="test")
            provider = client.runner.provider
            assert isinstance(provider, OpenAICompatibleProvider)
            assert provider._client.headers["api-key"] == "sk-provider-table"
        assert reply.text == "pong from the table's endpoint" and server.stats.chat_requests == 1
    assert len([n for n in _notes(caplog) if "deprecated" in n]) == (0 if spelling == "table" else 3)


def test_the_scripted_provider_replays_its_table_file(tmp_path: Path) -> None:
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({"match": "ping", "response": "scripted pong"}) + "\n", encoding="utf-8")

    def scripted(path: Path) -> LLMConfig:
        return load_config(None, llm={"provider": "scripted", "providers": {"scripted": {"file": str(path)}}}).llm

    assert (
        create_llm_client(scripted(rules)).chat([{"role": "user", "content": "ping"}], stage="t").text
        == "scripted pong"
    )
    with pytest.raises(ConfigError, match=r"llm\.providers\.scripted\.file .*missing\.jsonl: cannot read"):
        create_llm_client(scripted(tmp_path / "missing.jsonl"))
