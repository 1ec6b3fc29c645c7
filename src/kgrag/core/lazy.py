"""A value created on first use, exactly once even when many threads ask for it at the same time.

Query-time resources (the embedding model, the LLM client) are expensive to create and must be shared:
two threads that both see "not created yet" must not both load a model. Double-checked locking keeps
the common path (already created) free of the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Lazy(Generic[T]):
    """``get()`` calls ``create`` once, under a lock, and returns the same value ever after."""

    def __init__(self, create: Callable[[], T]) -> None:
        self._create = create
        self._box: tuple[T] | None = None  # a 1-tuple, so a created value of None still counts
        self._lock = threading.Lock()

    @property
    def created(self) -> bool:
        """Whether the value exists yet (listings and tests ask without creating it)."""
        return self._box is not None

    def get(self) -> T:
        box = self._box
        if box is None:
            with self._lock:
                if self._box is None:
                    self._box = (self._create(),)
                box = self._box
        return box[0]
