"""Progress reporting as a small protocol: the CLI shows rich bars, the Python API stays silent."""

from __future__ import annotations

from typing import Protocol


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
