"""The ``ray`` indexing engine: the configured pipeline's registered stages, with their heavy compute on Ray.

The stages run in order on the driver, as with the local engine; the engine only swaps where their pure
compute runs (:class:`~.ray_compute.RayCompute`: load+chunk, extraction, embedding as Ray Data stages)
and where LLM requests leave from (:mod:`.ray_llm`). All writes stay with the driver and are the local
engine's writes — per-document transactions, vectors keyed by (model, text hash), per-batch graph merges
with extraction marks — so the index is the same, a failed or killed run resumes where it stopped, and a
re-run does no work twice. Stages with no Ray form (graph-wide or cheap: discover, refresh, resolve,
reflect, communities, community-reports, finalize) run on the driver, and the run says so in a note.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from kgrag.core.stages import EMBED, EMBED_GRAPH, EXTRACT, INGEST
from kgrag.documents.loaders import LOADERS
from kgrag.indexing.compute import LocalCompute
from kgrag.indexing.context import IndexContext
from kgrag.indexing.engines.ray_compute import RayCompute
from kgrag.indexing.engines.ray_llm import remote_llm_calls
from kgrag.indexing.engines.ray_session import ray_session
from kgrag.indexing.engines.ray_settings import ray_settings
from kgrag.indexing.report import IndexReport
from kgrag.indexing.runner import run_stages
from kgrag.indexing.stages import IndexStage

RAY_STAGES = frozenset({INGEST, EMBED, EXTRACT, EMBED_GRAPH})
"""Stages whose compute goes through ``ctx.compute`` (and so runs on Ray with this engine)."""
START_TIME = "engine.ray-start"


class RayEngine:
    """Starts or joins Ray for the run, runs the stages with :class:`RayCompute`, then lets Ray go."""

    name = "ray"

    def run(self, ctx: IndexContext, stages: Sequence[IndexStage]) -> IndexReport:
        started = time.perf_counter()
        with ray_session(ray_settings(ctx.config.indexing), ctx.progress) as ray:
            ctx.report.add_time(START_TIME, time.perf_counter() - started)
            _note_placement(ctx, stages)
            ctx.compute = RayCompute(ray, ctx.config, ctx.progress, ctx.registries)
            try:
                with remote_llm_calls(ray, ctx.llm, ctx.config.llm.max_concurrency, ctx.progress):
                    return run_stages(ctx, stages)
            finally:
                # the session ends here; the context must not point into it (the workspace's loaders, as local)
                ctx.compute = LocalCompute(ctx.registries.get(LOADERS))


def _note_placement(ctx: IndexContext, stages: Sequence[IndexStage]) -> None:
    """Tell the user which stages run their compute on Ray and which run on the driver only."""
    names = [stage.name for stage in stages]
    on_ray = [name for name in names if name in RAY_STAGES]
    driver = [name for name in names if name not in RAY_STAGES]
    if driver:
        ctx.progress.note(
            f"indexing engine ray: compute of {', '.join(on_ray) or 'no stage'} on Ray; "
            f"{', '.join(driver)} on the driver (no Ray form: cheap or needs the whole graph)"
        )
