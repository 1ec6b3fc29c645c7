"""A small locked least-recently-used cache of values computed from texts, shared by several resources."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

V = TypeVar("V")


class TextCache(Generic[V]):
    """Recent values computed from a text, least recently used dropped first. Locked: an ``OrderedDict``
    reordered by two threads at once can lose or corrupt entries. The computation runs outside the lock,
    so threads with different texts compute in parallel."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str, compute: Callable[[str], V]) -> V:
        with self._lock:
            cached = self._values.get(text)
            if cached is not None:
                self._values.move_to_end(text)
                return cached
        value = compute(text)
        with self._lock:
            self._values[text] = value
            while len(self._values) > self.size:
                self._values.popitem(last=False)
        return value

    def get_many(self, texts: Sequence[str], compute: Callable[[list[str]], list[V]]) -> list[V]:
        """The values of ``texts``, computing the ones not cached in one ``compute`` call (one store read
        for a whole pool instead of one per text)."""
        with self._lock:
            found = {text: value for text in texts if (value := self._values.get(text)) is not None}
            for text in found:
                self._values.move_to_end(text)
        missing = list(dict.fromkeys(text for text in texts if text not in found))
        if missing:
            computed = dict(zip(missing, compute(missing), strict=True))
            found.update(computed)
            with self._lock:
                self._values.update(computed)
                while len(self._values) > self.size:
                    self._values.popitem(last=False)
        return [found[text] for text in texts]

    def __len__(self) -> int:
        return len(self._values)
