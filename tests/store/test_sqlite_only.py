"""What only the SQLite backend has: one WAL file, another process's lock, a damaged file, changes made
by other connections (``data_version``), and where ``store.url`` puts the file. Everything a second
backend must also do is in the contract modules next to this one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kgrag.config import StoreConfig
from kgrag.core.errors import WorkspaceError
from kgrag.store import open_store
from kgrag.store.sqlite import SQLiteStore
from kgrag.store.sqlite.store import open_sqlite_store


def test_file_store_uses_wal(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kgrag.sqlite3")
    try:
        assert store.db.scalar("PRAGMA journal_mode") == "wal"
        store.meta.set("k", "v")
        assert store.size_bytes() > 0
    finally:
        store.close()


def test_locked_database_is_a_workspace_error(tmp_path: Path) -> None:
    path = tmp_path / "kgrag.sqlite3"
    store = SQLiteStore(path)
    store.db._conn.execute("PRAGMA busy_timeout=50")  # do not wait the production 30 s
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process is writing
        with pytest.raises(WorkspaceError, match="locked by another process"), store.transaction():
            pass
        other.execute("COMMIT")
        with store.transaction():  # usable again once the other writer is done
            store.meta.set("k", "v")
        assert store.meta.get("k") == "v"
    finally:
        other.close()
        store.close()


def test_damaged_file_is_a_workspace_error(tmp_path: Path) -> None:
    path = tmp_path / "kgrag.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(WorkspaceError, match="not a usable kgrag database"):
        SQLiteStore(path)


def test_writes_of_another_connection_change_the_generation(tmp_path: Path) -> None:
    path = tmp_path / "kgrag.sqlite3"
    store = SQLiteStore(path)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        before = store.generation()
        other.execute("INSERT INTO meta(key, value) VALUES ('k', 'v')")  # e.g. a CLI indexing run
        assert store.generation() != before
        assert store.meta.get("k") == "v"
    finally:
        other.close()
        store.close()


def test_dry_run_holds_the_write_lock_and_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "kgrag.sqlite3"
    store = SQLiteStore(path)
    with store.transaction():
        store.meta.set("k", "before")
    other = sqlite3.connect(path, isolation_level=None, timeout=0.05)
    try:
        with store.dry_run():
            with store.transaction():
                store.meta.set("k", "inside")
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
            assert other.execute("SELECT value FROM meta WHERE key = 'k'").fetchone()[0] == "before"
        assert store.meta.get("k") == "before"
    finally:
        other.close()
        store.close()


def test_store_url_places_the_file(tmp_path: Path) -> None:
    stores = [
        open_sqlite_store(StoreConfig(), tmp_path),
        open_sqlite_store(StoreConfig(url="data/other.sqlite3"), tmp_path),
        open_sqlite_store(StoreConfig(url=str(tmp_path / "abs.sqlite3")), tmp_path / "elsewhere"),
        open_store(StoreConfig(url=":memory:"), tmp_path / "nowhere"),
    ]
    try:
        assert [s.db.path for s in stores if isinstance(s, SQLiteStore)] == [
            str(tmp_path / "kgrag.sqlite3"),
            str(tmp_path / "data" / "other.sqlite3"),
            str(tmp_path / "abs.sqlite3"),
            ":memory:",
        ]
        assert not (tmp_path / "nowhere").exists() and not (tmp_path / "elsewhere").exists()
    finally:
        for store in stores:
            store.close()


def test_a_steady_generation_reads_data_version_once_per_block(tmp_path: Path) -> None:
    """A query run pins what other processes committed (one ``PRAGMA data_version`` instead of one per
    hot-index check); its own writes still count at once, and the next block sees the other commit."""
    path = tmp_path / "kgrag.sqlite3"
    store = SQLiteStore(path)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        with store.steady_generation():
            pinned = store.generation()
            other.execute("INSERT INTO meta(key, value) VALUES ('k', 'v')")
            assert store.generation() == pinned
            with store.steady_generation():  # nested (a routed pipeline): the outer pin holds
                assert store.generation() == pinned
            store.meta.set("own", "write")
            assert store.generation() != pinned  # this process's content write is seen at once
        after = store.generation()
        with store.steady_generation():
            assert store.generation() == after != pinned
    finally:
        other.close()
        store.close()
