"""The indexing lock every store provides (``store.indexing_lock(progress)``, issue #14): a second holder of
the same store's lock notes that it waits and gets the lock when the first lets go; different stores do
not wait for each other; on PostgreSQL the lock lives on the server, so a SIGKILLed holder (its connection
dropped) releases it. Two whole indexers on one schema are tested in ``tests/reliability``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from tests.conftest import REPO
from tests.store.backends import StoreMaker
from tests.store.pg_fixture import SchemaUrl

from kgrag.config import StoreConfig
from kgrag.core.progress import SilentProgress
from kgrag.store import Store, open_store
from kgrag.store.base import IndexLocking
from kgrag.store.index_lock import LOCK_FILE_NAME, WAITING, indexing_lock
from kgrag.store.postgres.index_lock import lock_key
from kgrag.store.sqlite.store import SQLiteStore

TIMEOUT_S = 60.0  # only reached when a lock is broken; a working one answers at once

HOLDER = """
import sys, time
from pathlib import Path
from kgrag.config import StoreConfig
from kgrag.core.progress import SilentProgress
from kgrag.store import open_store

store = open_store(StoreConfig(backend="postgresql", url=sys.argv[1]), Path(sys.argv[2]))
with store.indexing_lock(SilentProgress()):
    print("held", flush=True)
    time.sleep(600)
"""


class SignallingProgress(SilentProgress):
    """Records notes and signals the first one."""

    def __init__(self) -> None:
        super().__init__()
        self.noted = threading.Event()

    def note(self, message: str) -> None:
        super().note(message)
        self.noted.set()


def _take_in_thread(store: Store) -> tuple[threading.Thread, SignallingProgress, threading.Event]:
    """Enter ``store``'s indexing lock in a thread (and leave it at once); ``acquired`` says it got in."""
    progress, acquired = SignallingProgress(), threading.Event()
    assert isinstance(store, IndexLocking)

    def take() -> None:
        with store.indexing_lock(progress):
            acquired.set()

    thread = threading.Thread(target=take, daemon=True)
    thread.start()
    return thread, progress, acquired


def _assert_waits_until_released(holder: Store, waiter: Store) -> None:
    assert isinstance(holder, IndexLocking)
    with holder.indexing_lock(SilentProgress()):
        thread, progress, acquired = _take_in_thread(waiter)
        assert progress.noted.wait(TIMEOUT_S)
        assert not acquired.is_set()
    thread.join(TIMEOUT_S)
    assert acquired.is_set() and progress.notes == [WAITING]


def test_a_second_holder_of_one_store_waits_with_the_note(make_persistent_store: StoreMaker) -> None:
    """Two connections to the same store (same workspace directory / same schema) take turns."""
    _assert_waits_until_released(make_persistent_store("ws"), make_persistent_store("ws"))


def test_different_stores_do_not_wait_for_each_other(make_persistent_store: StoreMaker) -> None:
    first, second = make_persistent_store("a"), make_persistent_store("b")
    assert isinstance(first, IndexLocking) and isinstance(second, IndexLocking)
    progress = SilentProgress()
    with first.indexing_lock(progress), second.indexing_lock(progress):
        assert progress.notes == []


def test_the_in_memory_store_takes_turns_between_threads() -> None:
    store, other = SQLiteStore(":memory:"), SQLiteStore(":memory:")
    _assert_waits_until_released(store, store)
    progress = SilentProgress()
    with store.indexing_lock(progress), other.indexing_lock(progress):  # two databases: no turns
        assert progress.notes == []


def test_two_workspaces_sharing_one_sqlite_file_take_turns(tmp_path: Path) -> None:
    """An absolute ``store.url`` lets two workspace directories open one database: the database's directory
    is locked too, while each workspace keeps the lock file older kgrag versions take."""
    shared = tmp_path / "shared" / "kgrag.sqlite3"
    shared.parent.mkdir()
    first = open_store(StoreConfig(url=str(shared)), _workspace_dir(tmp_path / "a"))
    second = open_store(StoreConfig(url=str(shared)), _workspace_dir(tmp_path / "b"))
    _assert_waits_until_released(first, second)
    assert (tmp_path / "a" / LOCK_FILE_NAME).exists() and (shared.parent / LOCK_FILE_NAME).exists()
    own = open_store(StoreConfig(), _workspace_dir(tmp_path / "c"))
    progress = SilentProgress()
    assert isinstance(own, IndexLocking) and isinstance(first, IndexLocking)
    with first.indexing_lock(progress), own.indexing_lock(progress):  # another database: no turns
        assert progress.notes == []


def _workspace_dir(path: Path) -> Path:
    path.mkdir()
    return path


def test_a_store_without_a_lock_of_its_own_gets_the_workspace_file_lock(tmp_path: Path) -> None:
    """A plug-in store that predates ``indexing_lock`` is locked as every store was before (#8)."""

    class PluginStore:  # only what the workspace's lock helper looks at
        pass

    with indexing_lock(tmp_path, PluginStore(), SilentProgress()):  # type: ignore[arg-type]
        assert (tmp_path / LOCK_FILE_NAME).exists()


def test_the_postgres_lock_key_is_stable() -> None:
    """Every kgrag version and process must derive the same key from a schema, or they would not meet."""
    assert lock_key("kgrag_docs") == lock_key("kgrag_docs") != lock_key("kgrag_other")
    assert lock_key("kgrag_docs") == 1719208298354480541


def test_a_killed_postgres_holder_releases_the_lock(pg_schema_url: SchemaUrl, tmp_path: Path) -> None:
    url = pg_schema_url(tmp_path / "shared")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, url, str(tmp_path / "one")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    store = open_store(StoreConfig(backend="postgresql", url=url), tmp_path / "two")  # another directory
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held", holder.communicate()[1]
        thread, progress, acquired = _take_in_thread(store)
        assert progress.noted.wait(TIMEOUT_S) and not acquired.is_set()
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        thread.join(TIMEOUT_S)
        assert acquired.is_set()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        store.close()
