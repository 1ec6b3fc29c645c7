"""The one place kgrag sets torch's intra-op thread count.

``torch.set_num_threads`` changes a process-wide setting: calling it per query (or per workspace) from
several threads would race, and a second workspace with another ``embedding.threads`` would silently
change the first one's speed mid-run. So it is applied at most once per process, under a lock, by the
first local model that asks; later requests get the value already in effect back (and a log line when
they asked for something else). This is the one piece of process-level state in kgrag, and it exists
only because the thing it guards is process-level too.
"""

from __future__ import annotations

import logging
import threading

_log = logging.getLogger(__name__)


class _ProcessThreads:
    """Holds the thread count applied to torch in this process (None: torch's default untouched)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._applied: int | None = None

    def apply(self, threads: int) -> int:
        with self._lock:
            if self._applied is None:
                import torch  # heavy: imported only when a local model is being built

                torch.set_num_threads(threads)
                self._applied = threads
            elif threads != self._applied:
                _log.info("torch threads already set to %d in this process; ignoring %d", self._applied, threads)
            return self._applied


_TORCH_THREADS = _ProcessThreads()


def set_torch_threads_once(threads: int) -> int:
    """Apply ``threads`` to torch if nothing in this process did yet; returns the count in effect."""
    return _TORCH_THREADS.apply(threads)
