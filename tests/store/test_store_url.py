"""The store shorthand: ``store = "postgresql://…"`` / ``KGRAG_STORE=…`` name the backend by URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrag.config import load_config
from kgrag.core.errors import ConfigError
from kgrag.store.postgres.url import default_schema, parse_target, redact


def test_a_url_string_sets_backend_and_url(tmp_path: Path) -> None:
    (tmp_path / "kgrag.toml").write_text('store = "postgresql://kg@db.example:5433/rag?schema=team_a"\n')
    store = load_config(tmp_path).store
    assert (store.backend, store.url) == ("postgresql", "postgresql://kg@db.example:5433/rag?schema=team_a")


@pytest.mark.parametrize(
    ("value", "backend", "url"),
    [
        ("postgres://kg@h/db", "postgresql", "postgres://kg@h/db"),
        ("sqlite:///data/my.sqlite3", "sqlite", "data/my.sqlite3"),
        ("sqlite:////abs/my.sqlite3", "sqlite", "/abs/my.sqlite3"),
        ("sqlite:///:memory:", "sqlite", ":memory:"),
    ],
)
def test_the_environment_shorthand(
    value: str, backend: str, url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KGRAG_STORE", value)
    store = load_config(tmp_path).store
    assert (store.backend, store.url) == (backend, url)


def test_a_table_still_works_and_a_bad_url_names_the_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGRAG_STORE__URL", "custom.sqlite3")
    assert load_config(tmp_path).store.url == "custom.sqlite3"
    monkeypatch.delenv("KGRAG_STORE__URL")
    monkeypatch.setenv("KGRAG_STORE", "mysql://u@h/db")
    with pytest.raises(ConfigError, match="store"):
        load_config(tmp_path)


def test_schema_defaults_to_the_workspace_name_and_libpq_never_sees_it(tmp_path: Path) -> None:
    workspace = tmp_path / "My Team-WS"
    assert default_schema(workspace) == "kgrag_my_team_ws"
    target = parse_target("postgresql://u:pw@h/db?sslmode=require&schema=s1", workspace)
    assert target.schema == "s1" and target.conninfo == "postgresql://u:pw@h/db?sslmode=require"
    assert parse_target("postgresql://u@h/db", workspace).schema == "kgrag_my_team_ws"
    assert redact("postgresql://u:pw@h/db") == "postgresql://u:***@h/db"
    # libpq also takes the password as a parameter; it is masked there too
    assert (
        redact("postgresql://u@h/db?sslmode=require&password=s3cret")
        == "postgresql://u@h/db?sslmode=require&password=***"
    )
    assert redact("postgresql://u@h/db?PASSWORD=s3cret&schema=a") == "postgresql://u@h/db?PASSWORD=***&schema=a"
