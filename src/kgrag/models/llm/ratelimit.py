"""Client-side limits: at most N requests in flight, and request/token rates per minute.

Providers publish per-minute quotas; staying under them is cheaper than collecting 429s. Each rate is a
token bucket refilled continuously that holds one second's worth (so a quota of 600/min sends at most
~10 requests in any second, not 600 in the first). A single request larger than the bucket may still
go when the bucket is full, leaving it in debt; otherwise a large prompt could never be sent.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class TokenBucket:
    """Thread-safe bucket of ``per_minute`` units; :meth:`acquire` blocks until the units are available."""

    def __init__(
        self,
        per_minute: float,
        burst_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate * burst_s)
        self._level = self.capacity
        self._clock = clock
        self._sleep = sleep
        self._last = clock()
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._level = min(self.capacity, self._level + (now - self._last) * self.rate)
        self._last = now

    def acquire(self, amount: float = 1.0) -> float:
        """Take ``amount`` units, waiting as needed; returns the seconds waited."""
        waited = 0.0
        need = min(amount, self.capacity)
        while True:
            with self._lock:
                self._refill()
                if self._level + 1e-9 >= need:  # tolerate float rounding of the refill
                    self._level -= amount
                    return waited
                wait = (need - self._level) / self.rate
            self._sleep(wait)
            waited += wait


class CallLimits:
    """Concurrency slot plus optional request and token buckets, taken together for one attempt."""

    def __init__(
        self,
        max_concurrency: int,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
    ) -> None:
        self.max_concurrency = max_concurrency
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._requests = TokenBucket(requests_per_minute) if requests_per_minute else None
        self._tokens = TokenBucket(tokens_per_minute) if tokens_per_minute else None

    @contextmanager
    def slot(self, tokens: int) -> Iterator[None]:
        """Hold a concurrency slot for the attempt; the rates are charged after the slot is won, so
        queued requests do not spend quota while they wait."""
        with self._slots:
            if self._requests is not None:
                self._requests.acquire(1)
            if self._tokens is not None:
                self._tokens.acquire(tokens)
            yield
