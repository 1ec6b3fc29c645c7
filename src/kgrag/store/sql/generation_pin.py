"""Reading a store's write generation once per query run instead of once per in-memory index check.

Every hot index (the vector matrix, the in-memory BM25 index, the graph index, counts) asks the store's
generation before answering, so it reloads after a commit by any process. One ``combined`` query checks
it about ten times, each a database round trip (``PRAGMA data_version`` on SQLite, a one-row read on
PostgreSQL). Inside :meth:`GenerationPin.hold` the thread reads it once and reuses that value until the
block ends: a write committed elsewhere meanwhile is seen by the next run, as it would have been had it
landed a moment later.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class GenerationPin:
    """The generation part a database reads from outside the process, pinned per thread while a block
    runs (a thread-local, so concurrent queries of a server each pin their own)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def value(self, read: Callable[[], int]) -> int:
        """The pinned value in this thread, else ``read()``."""
        pinned: int | None = getattr(self._local, "value", None)
        return read() if pinned is None else pinned

    @contextmanager
    def hold(self, read: Callable[[], int]) -> Iterator[None]:
        """Pin ``read()`` in this thread for the block; a nested block (a routing pipeline running another
        one) keeps the outer pin."""
        if getattr(self._local, "value", None) is not None:
            yield
            return
        self._local.value = read()
        try:
            yield
        finally:
            self._local.value = None
