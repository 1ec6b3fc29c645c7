"""In-memory values derived from the store (vector matrices, the graph index), reloaded only when the
store's write generation changes: queries stay fast, and indexing done elsewhere is still seen."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class HotValue(Generic[T]):
    """``get()`` returns the cached value, calling ``load`` again after any committed write.

    Thread-safe: concurrent queries on one workspace share one value, and a (re)load runs once under a
    lock instead of once per thread that noticed the change (a graph index load can take seconds).
    """

    def __init__(self, load: Callable[[], T], generation: Callable[[], int]) -> None:
        self._load = load
        self._generation = generation
        self._value: T | None = None
        self._loaded_at: int | None = None
        self._lock = threading.Lock()

    def get(self) -> T:
        with self._lock:
            current = self._generation()
            if self._value is None or current != self._loaded_at:
                self._value = self._load()
                self._loaded_at = current
            return self._value
