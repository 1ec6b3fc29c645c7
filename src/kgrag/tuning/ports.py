"""What tuning needs from a workspace: its parts (the workspace's ``Components`` satisfies
:class:`TuneParts`) and its read path (:class:`~kgrag.evaluation.service.Querying`)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from kgrag.evaluation.service import EvalParts, Querying

__all__ = ["Querying", "TuneParts"]


class TuneParts(EvalParts, Protocol):
    """The parts an evaluation reads, and where the workspace lives and keys its vectors."""

    @property
    def path(self) -> Path: ...

    @property
    def vector_key(self) -> str: ...
