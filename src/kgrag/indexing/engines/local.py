"""The ``local`` indexing engine: every stage, and all of its work, in this process."""

from __future__ import annotations

from collections.abc import Sequence

from kgrag.documents.loaders import LOADERS
from kgrag.indexing.compute import LocalCompute
from kgrag.indexing.context import IndexContext
from kgrag.indexing.report import IndexReport
from kgrag.indexing.runner import run_stages
from kgrag.indexing.stages import IndexStage


class LocalEngine:
    """The default: :func:`~kgrag.indexing.runner.run_stages` with inline compute."""

    name = "local"

    def run(self, ctx: IndexContext, stages: Sequence[IndexStage]) -> IndexReport:
        ctx.compute = LocalCompute(ctx.registries.get(LOADERS))
        return run_stages(ctx, stages)
