"""PostgreSQL-only behaviour: versioned migrations, the HNSW index, schema isolation, URL handling and
clear errors. The shared behaviour is the contract suite, which runs against this backend unchanged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import add_document
from tests.store.pg_fixture import SchemaUrl

from kgrag.config import StoreConfig
from kgrag.core.errors import ConfigError, WorkspaceError
from kgrag.core.llm_usage import CallLink
from kgrag.documents.records import content_hash
from kgrag.store import open_store
from kgrag.store.postgres import PostgresStore, parse_target
from kgrag.store.postgres.database import PgDatabase
from kgrag.store.postgres.migrations import LATEST, MIGRATIONS
from kgrag.store.postgres.vectors import _search_sql, index_name
from kgrag.testing.pg_server import PgServer


def _store(url: str, workspace: Path) -> PostgresStore:
    return PostgresStore(parse_target(url, workspace))


def test_a_version_1_schema_upgrades_in_place(pg_schema_url: SchemaUrl, tmp_path: Path) -> None:
    url = pg_schema_url(tmp_path)
    old = PgDatabase(parse_target(url, tmp_path), migrate_upto=1)
    with old.transaction():
        old.execute(
            "INSERT INTO documents (id, source, content_hash, status, updated_at) VALUES ('d', 's', 'h', 'chunked', 0)"
        )
        old.execute(
            "INSERT INTO chunks (id, doc_id, ord, char_start, char_end, n_tokens, text, text_hash) "
            "VALUES ('c', 'd', 0, 0, 20, 3, 'kestrel ingests telemetry', 'h')"
        )
    assert [r[0] for r in old.query("SELECT version FROM schema_migrations")] == [1]
    old.close()
    store = _store(url, tmp_path)
    versions = [r[0] for r in store.db.query("SELECT version FROM schema_migrations ORDER BY version")]
    assert versions == [m.version for m in MIGRATIONS] and versions[-1] == LATEST
    assert [h.id for h in store.chunks.search_bm25("telemetry", 5)] == ["c"]  # v2 indexed the old row
    assert store.denoise.runs() == []  # v3's tables exist
    store.close()
    again = _store(url, tmp_path)  # idempotent: nothing left to apply
    assert again.db.scalar("SELECT COUNT(*) FROM schema_migrations") == LATEST
    again.close()


def test_a_ledger_without_links_upgrades_in_place(pg_schema_url: SchemaUrl, tmp_path: Path) -> None:
    url = pg_schema_url(tmp_path)
    old = PgDatabase(parse_target(url, tmp_path), migrate_upto=6)  # the ledger before its links
    with old.transaction():
        old.execute(
            "INSERT INTO llm_calls (run_id, stage, provider, model, prompt_tokens, completion_tokens, usage_source, "
            "latency_ms, cache_hit, estimated, attempts, error, created_at) "
            "VALUES ('old', 'index.extract', 'openai', 'm', 900, 2400, 'api', 5.0, 0, 0, 1, 'cut', 1.0)"
        )
    old.close()
    store = _store(url, tmp_path)
    (row,) = store.llm_ledger.calls()
    assert (row.run_id, row.completion_tokens, row.error, row.link) == ("old", 2400, "cut", None)
    linked = replace(row, run_id="new", unit_key="k1", call_role="half")
    store.llm_ledger.record(linked)
    assert store.llm_ledger.calls() == [row, linked] and linked.link == CallLink("k1", "half")
    store.close()


def test_a_schema_from_a_newer_kgrag_is_refused(pg_schema_url: SchemaUrl, tmp_path: Path) -> None:
    url = pg_schema_url(tmp_path)
    store = _store(url, tmp_path)
    with store.db.transaction():
        store.db.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, 'future')", (LATEST + 1,))
    store.close()
    with pytest.raises(WorkspaceError, match="newer than this kgrag"):
        _store(url, tmp_path)


def test_vector_search_uses_the_model_hnsw_index(pg_schema_url: SchemaUrl, tmp_path: Path) -> None:
    store = _store(pg_schema_url(tmp_path), tmp_path)
    rng = np.random.default_rng(0)
    texts = [f"text {i}" for i in range(300)]
    add_document(store, "d", texts)
    vectors = rng.normal(size=(300, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.vectors.put("m", [(content_hash(t), v) for t, v in zip(texts, vectors, strict=True)])
    store.vectors.put("other", [(content_hash(texts[0]), np.ones(3, dtype=np.float32))])
    names = {r[0] for r in store.db.query("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")}
    assert {index_name("m", 8), index_name("other", 3)} <= names
    with store.db.transaction():
        store.db.execute("SET LOCAL enable_seqscan = off")
        plan = "\n".join(
            r[0] for r in store.db.query(b"EXPLAIN " + _search_sql("m", 8).as_bytes(None), {"q": vectors[0], "k": 5})
        )
    assert index_name("m", 8) in plan
    assert store.vectors.search("m", vectors[7], 1)[0].id == "d-c7"
    assert store.vectors.delete("other") == 1  # a model's last vectors go with its index
    names = {r[0] for r in store.db.query("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")}
    assert index_name("m", 8) in names and index_name("other", 3) not in names
    store.close()


def test_workspaces_sharing_a_database_are_isolated(pg_server: PgServer, tmp_path: Path) -> None:
    first = open_store(StoreConfig(backend="postgresql", url=pg_server.url), tmp_path / "alpha")
    second = open_store(StoreConfig(backend="postgresql", url=pg_server.url), tmp_path / "beta")
    add_document(first, "d", ["only in alpha"])
    assert first.chunks.count() == 1 and second.chunks.count() == 0
    assert isinstance(first, PostgresStore) and first.target.schema == "kgrag_alpha"
    first.close()
    second.close()


def test_commits_of_another_connection_move_the_generation(pg_schema_url: SchemaUrl, tmp_path: Path) -> None:
    url = pg_schema_url(tmp_path)
    reader, writer = _store(url, tmp_path), _store(url, tmp_path)
    before = reader.generation()
    add_document(writer, "d", ["text"])
    assert reader.generation() != before
    reader.close()
    writer.close()


def test_nul_characters_are_dropped_not_fatal(pg_schema_url: SchemaUrl, tmp_path: Path) -> None:
    store = _store(pg_schema_url(tmp_path), tmp_path)
    add_document(store, "d", ["nul\x00 inside"])
    assert store.chunks.get_many(["d-c0"])[0].text == "nul inside"
    store.close()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (None, "store.url is empty"),
        ("mysql://u@h/db", "not a PostgreSQL URL"),
        ("postgresql://u@h:port/db", "store.url"),
        ("postgresql://u@h/db?schema=Bad-Name", "schema 'Bad-Name'"),
    ],
)
def test_bad_urls_name_store_url(url: str | None, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_target(url, tmp_path)


def test_an_unreachable_server_or_a_wrong_password_is_a_clear_error(pg_server: PgServer, tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match=r"store.url postgresql://u@127.0.0.1:1/db: cannot connect"):
        _store("postgresql://u@127.0.0.1:1/db", tmp_path)
    wrong = pg_server.url.replace(pg_server.password, "wrong-secret")
    with pytest.raises(WorkspaceError, match="password") as caught:
        _store(wrong, tmp_path)
    assert "wrong-secret" not in str(caught.value) and ":***@" in str(caught.value)


def test_a_killed_owner_leaves_no_server_behind(pg_server: PgServer) -> None:
    """SIGKILL skips every cleanup in the owning process; the watchdog must still stop the cluster and
    remove its directory, so a killed test run leaves no PostgreSQL on the shared machine."""
    owner = subprocess.Popen(
        [sys.executable, "-c", "from kgrag.testing.pg_server import PgServer\n"
         "s = PgServer.start()\nprint(s.root, flush=True)\nimport time\ntime.sleep(600)\n"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert owner.stdout is not None
    root = Path(owner.stdout.readline().strip())
    assert (root / "data" / "postmaster.pid").exists()
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    deadline = time.monotonic() + 60
    while root.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not root.exists()
