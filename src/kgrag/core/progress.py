"""Progress reporting as a small protocol: the CLI shows rich bars, the Python API stays silent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

Detail = Callable[[], str]
"""A short status read each time a display draws a stage (``"3 LLM calls answered"``)."""


class Progress(Protocol):
    """Receives stage starts, advances and free-text notes from long-running work."""

    def start(self, stage: str, total: int | None) -> None: ...
    def advance(self, stage: str, amount: int = 1) -> None: ...
    def note(self, message: str) -> None: ...
    def finish(self, stage: str) -> None: ...


class SilentProgress:
    """The default: records notes so callers can still read warnings afterwards."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def start(self, stage: str, total: int | None) -> None:
        return None

    def advance(self, stage: str, amount: int = 1) -> None:
        return None

    def note(self, message: str) -> None:
        self.notes.append(message)

    def finish(self, stage: str) -> None:
        return None


def show_detail(progress: Progress, stage: str, detail: Detail | None) -> None:
    """Attach ``detail`` to ``stage`` (None detaches it): displays that offer ``detail(stage, fn)`` show its
    text beside the stage's count, so a stage whose count moves only when a slow unit finishes (an LLM
    extracting on a CPU) still shows work going on; the others ignore it."""
    attach = getattr(progress, "detail", None)
    if callable(attach):
        attach(stage, detail)
