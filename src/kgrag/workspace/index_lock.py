"""One indexer per workspace at a time: a second ``kgrag index`` waits for the first, then finds the
work done.

Without a lock two indexers on one workspace would both do the full work: each reads which chunks lack vectors
or extractions before the other has committed them, so both pay for every LLM call. Neither store serialises a
whole run (only single transactions), so a run holds its store's indexing lock for its duration
(:class:`kgrag.store.base.IndexLocking`). The lock belongs to the store because two workspace directories can
share one: SQLite takes an ``flock`` on a file in the workspace directory, PostgreSQL an advisory lock on the
workspace's schema, which also keeps apart indexers in different directories or on different machines that
name the same ``store.url`` (docs/postgresql.md). Both die with their holder, so a killed indexer (``kill
-9``) releases the lock at once; there is no stale lock to clean up. A plug-in store without a lock of its own
gets the workspace directory's file lock."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from kgrag.core.progress import Progress, SilentProgress
from kgrag.store import Store
from kgrag.store.base import IndexLocking
from kgrag.store.index_lock import LOCK_FILE_NAME, WAITING, file_lock

__all__ = ["LOCK_FILE_NAME", "WAITING", "indexing_lock"]


def indexing_lock(workspace: Path, store: Store, progress: Progress | None = None) -> AbstractContextManager[None]:
    """Hold the indexing lock of ``store`` (the workspace's) for the block, waiting with :data:`WAITING`
    (noted to ``progress``, when given) while another indexer holds it."""
    progress = progress or SilentProgress()
    if isinstance(store, IndexLocking):
        return store.indexing_lock(progress)
    return file_lock(workspace, progress)
