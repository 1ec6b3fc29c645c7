"""Running an indexing pipeline: resolve its stage names, then run the stages in order over one context.

The runner owns what every stage shares, so no stage repeats it: each stage's wall time goes into the
report under the stage's name, and the names in a pipeline are checked before anything runs, so a typo
in ``indexing.pipeline`` (or in a plug-in's pipeline) fails with a :class:`ConfigError` naming that field
instead of after an hour of embedding.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from kgrag.core.errors import ConfigError
from kgrag.core.stages import timing_key
from kgrag.indexing.context import IndexContext
from kgrag.indexing.engines import IndexEngine
from kgrag.indexing.registries import IndexRegistries, PipelineEntry
from kgrag.indexing.report import IndexReport
from kgrag.indexing.stages import IndexStage

FIELD = "indexing.pipeline"
ENGINE_FIELD = "indexing.engine"
DEFAULT_PIPELINE = "standard"


def pipeline_names(name: str, registries: IndexRegistries) -> list[str]:
    """The stage names of pipeline ``name``, as registered."""
    if name not in registries.pipelines:
        raise ConfigError(
            f"{FIELD}: unknown indexing pipeline {name!r}; available: {', '.join(registries.pipelines.names())}"
        )
    entry: PipelineEntry = registries.pipelines.load(name)
    names = entry() if callable(entry) else entry
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise ConfigError(f"{FIELD}: pipeline {name!r} must be a sequence of stage names, got {names!r}")
    return list(names)


def resolve_stages(names: Sequence[str], registries: IndexRegistries, pipeline: str = "") -> list[IndexStage]:
    """Create the stages of ``names`` in order; every name is checked before any stage is created."""
    where = f"{FIELD} {pipeline!r}" if pipeline else FIELD
    unknown = [n for n in names if n not in registries.stages]
    if unknown:
        raise ConfigError(
            f"{where}: unknown indexing stage {unknown[0]!r}; available: {', '.join(registries.stages.names())}"
        )
    stages: list[IndexStage] = []
    for stage_name in names:
        stage: IndexStage = registries.stages.create(stage_name)
        if getattr(stage, "name", None) != stage_name:
            raise ConfigError(
                f"{where}: stage registered as {stage_name!r} calls itself {getattr(stage, 'name', None)!r}; "
                "a stage's name is its progress label, timing key and ledger stage, so they must agree"
            )
        stages.append(stage)
    return stages


def run_stages(ctx: IndexContext, stages: Sequence[IndexStage]) -> IndexReport:
    """Run ``stages`` in order over ``ctx``; each one's time goes to ``ctx.report.seconds[stage.name]``."""
    for stage in stages:
        started = time.perf_counter()
        stage.run(ctx)
        ctx.report.add_time(timing_key(stage.name), time.perf_counter() - started)
        ctx.stages_run.append(stage.name)
    return ctx.report


def resolve_engine(name: str, registries: IndexRegistries) -> IndexEngine:
    """The indexing engine ``name`` (``indexing.engine``), checked before anything runs."""
    if name not in registries.engines:
        raise ConfigError(
            f"{ENGINE_FIELD}: unknown indexing engine {name!r}; available: {', '.join(registries.engines.names())}"
        )
    engine: IndexEngine = registries.engines.create(name)
    return engine


def run_pipeline(
    ctx: IndexContext,
    pipeline: str = DEFAULT_PIPELINE,
    registries: IndexRegistries | None = None,
    engine: str | None = None,
) -> IndexReport:
    """Run the indexing pipeline named ``pipeline`` (from ``registries``, built-ins by default) over ``ctx``
    on the indexing engine ``engine`` (default ``indexing.engine``: ``local`` unless configured)."""
    registries = registries or IndexRegistries.builtin()
    stages = resolve_stages(pipeline_names(pipeline, registries), registries, pipeline)
    return resolve_engine(engine or ctx.config.indexing.engine, registries).run(ctx, stages)
