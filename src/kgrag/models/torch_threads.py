"""The one place kgrag sets torch's intra-op thread count: per call, by the call's size.

On a busy machine torch's worker threads spin while they wait for a core, so a single query's embedding
with the default threads costs many times the model's own time (docs/results/design-measurements.md); one
thread does not wait for anybody. A batch of passages, on the other hand, is faster
with every core. So each call of a local torch model says how many threads it wants
(:func:`threads_for_call`), and :class:`TorchThreadGate` applies that before the call runs.

``torch.set_num_threads`` changes a process-wide setting, so calls that want different counts must not
overlap: the gate lets any number of calls wanting the *same* count run together (concurrent queries of
a server all run with one thread each) and switches the count only when none is running; a waiting call
of the other kind stops new arrivals, so neither kind starves the other. When the last call leaves, the
count torch had before kgrag's first call is put back, so other torch code in the process keeps its
setting. This is the one piece of process-level state in kgrag, and it exists only because the thing it
guards is process-level too.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def threads_for_call(n_texts: int, small_call_texts: int, small_call_threads: int, threads: int | None) -> int | None:
    """Threads for a call of ``n_texts`` texts: ``small_call_threads`` up to ``small_call_texts`` texts (a
    query), else ``threads`` (None: whatever torch would use, i.e. leave the count as it was)."""
    return small_call_threads if n_texts <= small_call_texts else threads


class TorchThreadGate:
    """Runs torch calls with the thread count each asks for (see the module docstring)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._running = 0
        self._count: int | None = None  # what the running calls use
        self._waiting = 0  # calls waiting for another count
        self._original: int | None = None  # torch's count before the first change

    @contextmanager
    def threads(self, count: int | None) -> Iterator[None]:
        """Hold the gate for one call that wants ``count`` threads (None: torch's original count)."""
        torch = _torch()
        if torch is None:  # no torch here (a fake model in a test): nothing to set
            yield
            return
        with self._cond:
            if self._original is None:
                self._original = int(torch.get_num_threads())
            wanted = count or self._original
            if self._running and (self._count != wanted or self._waiting):
                self._waiting += 1
                self._cond.wait_for(lambda: not self._running)
                self._waiting -= 1
            if self._count != wanted:
                if int(torch.get_num_threads()) != wanted:
                    torch.set_num_threads(wanted)
                self._count = wanted
            self._running += 1
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                if not self._running:
                    if self._count != self._original and not self._waiting:
                        torch.set_num_threads(self._original)
                        self._count = self._original
                    self._cond.notify_all()


def _torch() -> Any | None:
    try:
        import torch  # heavy: only local torch models come here, and they have imported it already
    except ImportError:
        return None
    return torch


TORCH_THREADS = TorchThreadGate()
"""The process's gate: every local torch model of every workspace goes through this one."""
