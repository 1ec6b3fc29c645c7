"""One indexer per workspace at a time: a second ``kgrag index`` waits for the first, then finds the
work done.

Two indexers on one workspace used to both do the full work: each read which chunks lacked vectors or
extractions before the other had committed them, so both paid for every LLM call (164 requests instead
of 106 in the issue's measurement). SQLite only serialises single transactions, not a whole run, so a
run takes an advisory lock file (``flock``) in the workspace for its duration. The lock belongs to the
open file, so a killed indexer (``kill -9``) releases it at once; there is no stale lock to clean up.
Where ``flock`` does not exist (Windows) or the lock file cannot be created (a read-only workspace,
which cannot be indexed anyway), the run goes on without it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgrag.core.progress import Progress

LOCK_FILE_NAME = ".kgrag-index.lock"
WAITING = (
    "another `kgrag index` is running on this workspace; waiting for it to finish "
    "(whatever it indexes will not be paid for twice)"
)


@contextmanager
def indexing_lock(workspace: Path, progress: Progress) -> Iterator[None]:
    """Hold the workspace's indexing lock for the block, waiting (with a note) while another holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        descriptor = os.open(workspace / LOCK_FILE_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            progress.note(WAITING)
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock
