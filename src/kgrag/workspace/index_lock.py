"""One writer per workspace at a time (:func:`kgrag.store.index_lock.indexing_lock`), under its older name."""

from kgrag.store.index_lock import LOCK_FILE_NAME, WAITING, indexing_lock

__all__ = ["LOCK_FILE_NAME", "WAITING", "indexing_lock"]
