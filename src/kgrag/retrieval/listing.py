"""What ``kgrag pipelines`` shows: every registered pipeline (built-in, plug-in or local), where it
comes from, its description and each requirement with whether this workspace meets it.

A recipe that fails to build (a plug-in whose package is broken) is listed with its error rather than
failing the whole listing: the listing is where a user goes to find out what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgrag.core.errors import KgragError
from kgrag.core.registry import Registry
from kgrag.retrieval.pipelines import PipelineFactory, build_pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.requirements import RequirementStatus, requirement_status


@dataclass(frozen=True)
class PipelineInfo:
    """One row of the listing."""

    name: str
    origin: str
    description: str
    requirements: list[RequirementStatus] = field(default_factory=list)
    error: str = ""

    @property
    def ready(self) -> bool:
        return not self.error and all(r.met for r in self.requirements)


def describe_pipelines(registry: Registry[PipelineFactory], ctx: QueryContext) -> list[PipelineInfo]:
    """Build every registered pipeline for ``ctx.config`` and check its requirements on ``ctx``."""
    infos = []
    for entry in registry.entries():
        try:
            pipeline = build_pipeline(registry, entry.name, ctx.config)
        except KgragError as exc:
            infos.append(PipelineInfo(entry.name, entry.origin, entry.summary, error=str(exc)))
            continue
        infos.append(
            PipelineInfo(entry.name, entry.origin, pipeline.description, requirement_status(pipeline.requires, ctx))
        )
    return infos
