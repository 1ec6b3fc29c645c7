"""``/v1/workspaces/{workspace}/settings``: what a client should preselect, from the workspace's config.

The page asks this once per workspace: the pipeline a question goes to when none is named
(``retrieval.default_pipeline``), the set it compares by default (``kgrag compare``'s, keeping the ones that
can run here), and every pipeline with whether it can run and, when not, why.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from kgrag.retrieval.listing import PipelineInfo
from kgrag.server.deps import WorkspaceDep
from kgrag.server.state import server_state

router = APIRouter(tags=["workspaces"])

COMPARE_DEFAULT = ("hybrid", "graph-local", "ppr", "auto")
"""The pipelines ``kgrag compare`` answers with when none are named."""


class PipelineOption(BaseModel):
    """One retrieval pipeline as a picker shows it."""

    name: str
    available: bool = Field(description="Whether it can answer in this workspace now.")
    reason: str = Field(description="Why it cannot (the unmet requirements and their fix); empty when available.")
    description: str


class Settings(BaseModel):
    """The defaults a client preselects, and the choices."""

    default_pipeline: str = Field(description="retrieval.default_pipeline: where a question goes by default.")
    compare_pipelines: list[str] = Field(
        description="The pipelines to compare by default: the default pipeline first, then kgrag compare's "
        "default set, only those available here."
    )
    pipelines: list[PipelineOption]
    k: int = Field(description="retrieval.k: passages per answer by default.")
    context_tokens: int = Field(description="generation.context_tokens: the answer's context budget by default.")
    max_compare_pipelines: int = Field(description="Most pipelines one compare request may name.")


def _reason(info: PipelineInfo) -> str:
    if info.error:
        return info.error
    return "; ".join(r.message or f"needs {r.name}" for r in info.requirements if not r.met)


def _option(info: PipelineInfo) -> PipelineOption:
    return PipelineOption(name=info.name, available=info.ready, reason=_reason(info), description=info.description)


@router.get("/settings", response_model=Settings, summary="Default and comparison pipelines, and every pipeline")
def settings(hosted: WorkspaceDep, request: Request) -> Settings:
    config = hosted.ws.config
    options = [_option(info) for info in hosted.ws.querying.pipelines()]
    available = {o.name for o in options if o.available}
    limit = server_state(request).limits.max_compare_pipelines
    default = config.retrieval.default_pipeline
    wanted = dict.fromkeys([default, *COMPARE_DEFAULT])
    compare = [name for name in wanted if name in available][:limit]
    return Settings(
        default_pipeline=default,
        compare_pipelines=compare,
        pipelines=options,
        k=config.retrieval.k,
        context_tokens=config.generation.context_tokens,
        max_compare_pipelines=limit,
    )
