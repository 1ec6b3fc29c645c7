"""The indexing lock's building blocks, shared by the store backends (:meth:`indexing_lock` of a store).

One indexer per store at a time: without it two indexers on one store would both do the full work, since
each reads which chunks lack vectors or extractions before the other has committed them, so both pay for
every LLM call. A run therefore holds its store's
indexing lock for its duration; a second one waits with :data:`WAITING`, then finds the work done. Each
backend locks what identifies *its* data: the SQLite store a file in the workspace directory
(:func:`file_lock`), the PostgreSQL store its schema on the server
(:mod:`kgrag.store.postgres.index_lock`), the in-memory fake the store object (:class:`ProcessLock`).
Every lock here dies with its holder, so a killed indexer (``kill -9``) leaves no stale lock behind.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from kgrag.core.progress import Progress, SilentProgress

if TYPE_CHECKING:
    from kgrag.store.base import Store

LOCK_FILE_NAME = ".kgrag-index.lock"
WAITING = (
    "another kgrag process is writing to this workspace (`kgrag index`, `graph denoise`, `graph communities`, "
    "`remove`, `migrate` or a server job); waiting for it to finish (what it indexes is not paid for twice)"
)


def wait_noted(try_acquire: Callable[[], bool], acquire: Callable[[], object], progress: Progress) -> None:
    """Take a lock: at once when it is free, else say so (:data:`WAITING`) and block until it is."""
    if not try_acquire():
        progress.note(WAITING)
        acquire()


@contextmanager
def file_lock(directory: Path, progress: Progress) -> Iterator[None]:
    """Hold an ``flock`` on ``directory/.kgrag-index.lock`` for the block.

    The lock belongs to the open file, so it is released when the holder exits or is killed. Where
    ``flock`` does not exist (Windows) or the lock file cannot be created (a read-only workspace, which
    cannot be indexed anyway), the block runs without it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        descriptor = os.open(directory / LOCK_FILE_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return

    def try_acquire() -> bool:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    try:
        wait_noted(try_acquire, lambda: fcntl.flock(descriptor, fcntl.LOCK_EX), progress)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


class ProcessLock:
    """The indexing lock of a store only this process can reach (``SQLiteStore(":memory:")``, the test
    fake): threads indexing into the same store object take turns, with the same note."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    @contextmanager
    def held(self, progress: Progress) -> Iterator[None]:
        wait_noted(lambda: self._lock.acquire(blocking=False), self._lock.acquire, progress)
        try:
            yield
        finally:
            self._lock.release()


def indexing_lock(workspace: Path, store: Store, progress: Progress | None = None) -> AbstractContextManager[None]:
    """Hold the indexing lock of ``store`` (a workspace's) for the block, waiting with :data:`WAITING`
    (noted to ``progress``, when given) while another writer holds it. The lock belongs to the store,
    since two workspace directories can share one; a plug-in store without a lock of its own
    (:class:`~kgrag.store.base.IndexLocking`) gets the file lock of the workspace directory."""
    from kgrag.store.base import IndexLocking

    progress = progress or SilentProgress()
    if isinstance(store, IndexLocking):
        return store.indexing_lock(progress)
    return file_lock(workspace, progress)
