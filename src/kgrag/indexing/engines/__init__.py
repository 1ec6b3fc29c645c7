"""Indexing engines: where a pipeline's stages do their heavy work, chosen by ``indexing.engine``.

An engine runs the *registered* stages of the configured pipeline, in order, over one
:class:`~kgrag.indexing.context.IndexContext`; what it may change is the context's ``compute`` (where
reading, chunking, extraction and embedding run) and the resources around the run (a Ray session). It
never has its own copy of a stage, so every engine writes the same index, with the same idempotent,
resumable writes. Engines come from the ``index_engine`` registry kind (``KINDS``, entry points
``kgrag.index_engines``): ``local`` (this process, the default) and ``ray`` (:mod:`.ray_engine`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from kgrag.indexing.context import IndexContext
from kgrag.indexing.report import IndexReport
from kgrag.indexing.stages import IndexStage


class IndexEngine(Protocol):
    """Runs ``stages`` in order over ``ctx`` and returns the run's report."""

    name: str

    def run(self, ctx: IndexContext, stages: Sequence[IndexStage]) -> IndexReport: ...


EngineFactory = Callable[[], IndexEngine]
"""An engine entry: called with no arguments (an engine reads its settings from ``ctx.config``)."""

__all__ = ["EngineFactory", "IndexEngine"]
