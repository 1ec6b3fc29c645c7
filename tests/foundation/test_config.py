"""Config: precedence, clear errors naming the field, and docs/configuration.md kept in sync."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgrag import Workspace
from kgrag.config import StoreConfig, configuration_markdown, default_toml, load_config
from kgrag.core.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]


def test_defaults_follow_the_papers() -> None:
    cfg = load_config()
    assert cfg.retrieval.rrf_k == 60
    assert cfg.retrieval.k == 5
    assert cfg.chunking.size_tokens is None  # follows the embedder window


def test_toml_then_env_then_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kgrag.toml").write_text("[retrieval]\nk = 7\nrrf_k = 10\n")
    assert load_config(tmp_path).retrieval.k == 7
    monkeypatch.setenv("KGRAG_RETRIEVAL__K", "9")
    cfg = load_config(tmp_path)
    assert (cfg.retrieval.k, cfg.retrieval.rrf_k) == (9, 10)
    assert load_config(tmp_path, retrieval={"k": 3}).retrieval.k == 3


def test_bad_value_names_field_and_allowed_values(tmp_path: Path) -> None:
    (tmp_path / "kgrag.toml").write_text('[embedding]\nprovider = "magic"\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    message = str(info.value)
    assert "embedding.provider" in message
    assert "sentence-transformers" in message and "kgrag.toml" in message


def test_a_shorthand_above_the_generated_table_of_the_same_name_names_both_lines(tmp_path: Path) -> None:
    Workspace.init(tmp_path / "ws").close()
    toml = tmp_path / "ws" / "kgrag.toml"
    generated = toml.read_text(encoding="utf-8")
    toml.write_text('store = "postgresql://kgrag@127.0.0.1:5432/rag"\n' + generated, encoding="utf-8")
    table = 1 + next(i for i, line in enumerate(generated.splitlines(), 1) if line.strip() == "[store]")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "ws")
    message = str(info.value)
    assert f"`store` is set twice: as `store = …` on line 1 and as the [store] table on line {table}" in message
    assert "not valid TOML" not in message


def test_unknown_key_and_broken_toml_are_reported(tmp_path: Path) -> None:
    (tmp_path / "kgrag.toml").write_text("[retrieval]\nkk = 3\n")
    with pytest.raises(ConfigError, match=r"retrieval\.kk"):
        load_config(tmp_path)
    (tmp_path / "kgrag.toml").write_text("[retrieval\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(tmp_path)


def test_a_misspelt_key_or_section_is_answered_with_the_name_meant(tmp_path: Path) -> None:
    (tmp_path / "kgrag.toml").write_text('[retrieval]\ndefault_pipline = "hybrid"\n')
    with pytest.raises(
        ConfigError, match=r"retrieval\.default_pipline: unknown key; did you mean 'default_pipeline'\?"
    ):
        load_config(tmp_path)
    (tmp_path / "kgrag.toml").write_text("[retreival]\nk = 3\n")
    with pytest.raises(ConfigError, match=r"retreival: unknown key; did you mean 'retrieval'\?"):
        load_config(tmp_path)
    (tmp_path / "kgrag.toml").write_text("[retrieval]\nzzz = 3\n")
    with pytest.raises(ConfigError, match=r"retrieval\.zzz: unknown key(?!;)"):
        load_config(tmp_path)


def test_overlap_must_be_smaller_than_size() -> None:
    with pytest.raises(ConfigError, match="overlap"):
        load_config(chunking={"size_tokens": 100, "overlap_tokens": 100})


def test_default_toml_is_loadable(tmp_path: Path) -> None:
    (tmp_path / "kgrag.toml").write_text(default_toml())
    assert load_config(tmp_path).retrieval.k == 5


def test_every_placeholder_can_be_uncommented_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Uncommenting any setting line of the generated kgrag.toml (``size_tokens = ""`` included) keeps
    the defaults: an empty placeholder means "automatic"."""
    setting = re.compile(r"^# ([a-z0-9_]+ = .*)$")
    lines = [setting.sub(r"\1", line) for line in default_toml().splitlines()]
    assert sum(1 for line in lines if line.startswith('size_tokens = ""')) == 1
    (tmp_path / "kgrag.toml").write_text("\n".join(lines), encoding="utf-8")
    assert load_config(tmp_path).model_dump(mode="json") == load_config().model_dump(mode="json")
    monkeypatch.setenv("KGRAG_CHUNKING__SIZE_TOKENS", "")
    assert load_config().chunking.size_tokens is None
    with pytest.raises(ConfigError, match=r"retrieval\.k"):  # a field with a real default still wants a value
        load_config(retrieval={"k": ""})


def test_configuration_docs_are_current() -> None:
    documented = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert documented == configuration_markdown() + "\n", (
        "docs/configuration.md is stale: run `python -m kgrag.config > docs/configuration.md`"
    )


def test_store_backend_is_validated_against_the_registry(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"store\.backend.*unknown store backend 'postgres'.*sqlite"):
        load_config(store={"backend": "postgres"})
    assert load_config().store == StoreConfig(backend="sqlite", url=None)
    with Workspace.init(tmp_path / "ws", store={"url": "data/custom.sqlite3"}, embedding={"provider": "fake"}) as ws:
        ws.store.meta.set("k", "v")
    assert (tmp_path / "ws" / "data" / "custom.sqlite3").exists()
    assert not (tmp_path / "ws" / "kgrag.sqlite3").exists()
