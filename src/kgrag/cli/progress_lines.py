"""Progress for a log rather than a terminal: plain lines, a few seconds apart.

Rich's bars redraw one screen region; written to a file or a pipe (CI, ``nohup``, ``| tee``) they show
nothing until the run ends, so an hour of indexing looks like a hang. Here every stage gets a line when it
starts and when it finishes, and while it runs a line every ``interval_s`` seconds, also when the
stage has not advanced since (a long model load or a slow LLM call still shows the run is alive).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from rich.console import Console

from kgrag.core.progress import Detail

LINE_INTERVAL_S = 5.0


@dataclass
class _Stage:
    total: int | None
    started: float
    done: int = 0
    last_line: float = 0.0


class LineProgress:
    """:class:`kgrag.core.progress.Progress` as plain lines: start, every ``interval_s`` while running,
    finish. Thread-safe: stages advance from worker threads and a timer thread writes the periodic lines."""

    def __init__(
        self, console: Console, interval_s: float = LINE_INTERVAL_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._console = console
        self._interval = interval_s
        self._clock = clock
        self._stages: dict[str, _Stage] = {}
        self._details: dict[str, Detail] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None

    def __enter__(self) -> LineProgress:
        self._timer = threading.Thread(target=self._beat, name="kgrag-progress", daemon=True)
        self._timer.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._timer is not None:
            self._timer.join()

    def _beat(self) -> None:
        while not self._stop.wait(self._interval / 4):
            self.tick()

    def _print(self, text: str) -> None:
        self._console.print(text, markup=False, highlight=False, soft_wrap=True)

    def _line(self, stage: str, state: _Stage, finished: bool = False) -> None:
        """``embed: 20/80 (25%) after 5.0s``, ``embed: done, 80/80 (100%) after …``; a stage that counts
        nothing shows no count (``communities: running after …``, ``communities: done after …``)."""
        now = self._clock()
        if state.total is not None:
            count = f"{state.done}/{state.total}" + (f" ({100 * state.done / state.total:.0f}%)" if state.total else "")
        else:
            count = f"{state.done}" if state.done else ""
        head = "done" if finished else "" if count else "running"
        shown = self._details.get(stage)
        extra = shown() if shown is not None else ""
        parts = ", ".join(part for part in (head, count) if part)
        self._print(f"{stage}: {parts} after {now - state.started:.1f}s" + (f" · {extra}" if extra else ""))
        state.last_line = now

    def tick(self) -> None:
        """A line for every running stage that printed none for ``interval_s`` (the timer calls this)."""
        with self._lock:
            now = self._clock()
            for stage, state in self._stages.items():
                if now - state.last_line >= self._interval:
                    self._line(stage, state)  # the same line as an advance's: one format while a stage runs

    def start(self, stage: str, total: int | None) -> None:
        with self._lock:
            now = self._clock()
            self._stages[stage] = _Stage(total, now, last_line=now)
            self._print(f"{stage}: started" + (f", {total} to do" if total is not None else ""))

    def advance(self, stage: str, amount: int = 1) -> None:
        with self._lock:
            state = self._stages.get(stage)
            if state is None:
                return
            state.done += amount
            if self._clock() - state.last_line >= self._interval:
                self._line(stage, state)

    def note(self, message: str) -> None:
        with self._lock:
            self._print(f"! {message}")

    def detail(self, stage: str, detail: Detail | None) -> None:
        """Show ``detail()`` at the end of ``stage``'s lines (:func:`kgrag.core.progress.show_detail`)."""
        with self._lock:
            if detail is None:
                self._details.pop(stage, None)
            else:
                self._details[stage] = detail

    def finish(self, stage: str) -> None:
        with self._lock:
            state = self._stages.pop(stage, None)
            if state is not None:
                state.done = state.total if state.total is not None else state.done
                self._line(stage, state, finished=True)
