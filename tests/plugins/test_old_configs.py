"""Real kgrag.toml files of earlier releases load without loss.

The fixtures in tests/fixtures/old_configs are, per commit, what `kgrag init` wrote then (``-init``) and that
file with every key uncommented and set to a value other than its default that the code of that commit
accepted (``-set``). Each value must come back from today's config at its key, or, for a key that moved,
at every new key the migration table names, with one note per moved key and no unknown-key error."""

from __future__ import annotations

import logging
import math
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from kgrag.config import load_config
from kgrag.config.entry_settings import MIGRATIONS
from kgrag.models.llm.provider_settings import OpenAIProviderSettings, ScriptedProviderSettings

OLD_CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "old_configs"
COMMITS = ("3504667", "3d996f2")


def _keys(path: Path) -> dict[str, Any]:
    """``{"section.key": value}`` of every key the file sets."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {f"{section}.{key}": value for section, table in data.items() for key, value in table.items()}


def _split(key: str) -> list[str]:
    """``documents.loaders.".json".text_field`` → its parts, a quoted part kept whole."""
    out: list[str] = []
    for index, piece in enumerate(key.split('"')):
        out += [piece] if index % 2 == 1 else [p for p in piece.split(".") if p]
    return out


def _at(dumped: dict[str, Any], key: str) -> Any:
    value: Any = dumped
    for part in _split(key):
        assert isinstance(value, dict) and part in value, f"{key}: nothing at {part!r}"
        value = value[part]
    return value


def _same(old: Any, new: Any) -> bool:
    """``new`` holds ``old``: equal values, or for a table every old key with its value (a table may have
    gained entries moved into it from flat keys)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return all(key in new and _same(value, new[key]) for key, value in old.items())
    if old == "" and new is None:  # "" was the written spelling of "automatic"
        return True
    if isinstance(old, float | int) and isinstance(new, float | int) and not isinstance(old, bool):
        return math.isclose(old, new)
    return bool(old == new)


def _moves() -> dict[str, list[str]]:
    """Old key → the new keys it is read as (the rows of the migration table that name keys)."""
    out: dict[str, list[str]] = {}
    for old, new in MIGRATIONS:
        if " " not in old and "<" not in old:
            out[old] = new.split(" and ")
    return out


@pytest.mark.parametrize("commit", COMMITS)
def test_what_kgrag_init_wrote_loads_as_the_defaults(commit: str, tmp_path: Path) -> None:
    shutil.copy(OLD_CONFIGS / f"{commit}-init.toml", tmp_path / "kgrag.toml")
    assert load_config(tmp_path).model_dump() == load_config(None).model_dump()


@pytest.mark.parametrize("commit", COMMITS)
def test_every_old_value_is_read_at_its_new_key(commit: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    source = OLD_CONFIGS / f"{commit}-set.toml"
    shutil.copy(source, tmp_path / "kgrag.toml")
    with caplog.at_level(logging.WARNING, logger="kgrag.config"):
        config = load_config(tmp_path)
    dumped = config.model_dump(mode="json")
    notes = [record.getMessage() for record in caplog.records]
    moves = _moves()
    old_keys = _keys(source)
    for key, value in old_keys.items():
        for new in moves.get(key, [key]):
            assert _same(value, _at(dumped, new)), f"{commit}: {key} = {value!r} read as {_at(dumped, new)!r} at {new}"
        if key in moves:
            line = f"{key} is deprecated; use {' and '.join(moves[key])}"
            assert sum(line in note for note in notes) == 1, f"{commit}: no single note for {key}"
    assert len(notes) == len(old_keys.keys() & moves.keys()), notes
    assert all("\n" not in note for note in notes)


@pytest.mark.parametrize("commit", COMMITS)
def test_the_llm_endpoint_settings_are_read_as_the_openai_provider_s(commit: str, tmp_path: Path) -> None:
    """The flat ``[llm]`` endpoint keys (and 3d996f2's ``scripted_file``) land in the provider tables the
    provider factories read, not only somewhere in the dump."""
    shutil.copy(OLD_CONFIGS / f"{commit}-set.toml", tmp_path / "kgrag.toml")
    llm = load_config(tmp_path).llm
    openai = llm.entry_settings("providers", "openai", OpenAIProviderSettings)
    assert openai == OpenAIProviderSettings(
        base_url="https://api.openai.com/v1-custom", api_key_env="OPENAI_API_KEY-custom", api_key_header="bearer"
    )
    assert "openai" in llm.providers and "base_url" not in llm.model_dump()
    assert llm.entry_settings("providers", "scripted", ScriptedProviderSettings).file is None
    assert ("scripted" in llm.providers) == (commit == "3d996f2")  # "" (automatic) was written there


def test_the_fixtures_set_the_keys_that_moved() -> None:
    """The fixtures exercise the migrations: most moved keys appear in at least one of them."""
    seen = set().union(*(_keys(OLD_CONFIGS / f"{commit}-set.toml") for commit in COMMITS))
    moved = set(_moves())
    assert len(moved & seen) >= len(moved) // 2, sorted(moved - seen)
