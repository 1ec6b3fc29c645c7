"""The fake of the :class:`~kgrag.core.stages.Stage` protocol: records that (and on what) it ran.

Tests of runners and pipelines need stages whose only effect is to be observable; this one keeps the
order of calls in a list the test owns, so several instances can share it.
"""

from __future__ import annotations

from typing import Generic, TypeVar

Ctx = TypeVar("Ctx")


class RecordingStage(Generic[Ctx]):
    """A stage named ``name`` that appends its name to ``log`` and keeps the contexts it was given."""

    def __init__(self, name: str, log: list[str] | None = None) -> None:
        self.name = name
        self.log: list[str] = log if log is not None else []
        self.contexts: list[Ctx] = []

    def run(self, ctx: Ctx) -> None:
        self.log.append(self.name)
        self.contexts.append(ctx)
