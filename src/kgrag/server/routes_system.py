"""Health, metrics, the workspaces a key may use, a workspace's status and its pipelines."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse
from typing_extensions import TypedDict

from kgrag import __version__
from kgrag.core.errors import StoreUnavailableError
from kgrag.server.deps import CallerDep, WorkspaceDep
from kgrag.server.state import HostedWorkspace, server_state


class Health(TypedDict):
    status: str
    version: str
    auth: bool


class WorkspaceRow(TypedDict):
    """A workspace this key may use: documents per status and chunks; ``error`` says why they are missing
    (its database server cannot be reached) and is empty otherwise."""

    name: str
    documents: dict[str, int]
    chunks: int
    error: str


class RequirementRow(TypedDict):
    name: str
    met: bool
    message: str


class PipelineRow(TypedDict):
    """A retrieval pipeline: where it comes from, what it needs here and whether it can run."""

    name: str
    origin: str
    description: str
    requirements: list[RequirementRow]
    error: str
    ready: bool


public = APIRouter(tags=["system"])
router = APIRouter(tags=["system"])
workspace_router = APIRouter(tags=["workspaces"])


@public.get("/health", summary="Liveness (no key needed; says nothing about the data)")
def health(request: Request) -> Health:
    return Health(status="ok", version=__version__, auth=bool(server_state(request).keys))


@router.get("/metrics", response_class=PlainTextResponse, summary="Prometheus metrics")
def metrics(request: Request, who: CallerDep) -> str:
    """Per workspace: documents, chunks, whether a job runs and whether its store answers (``kgrag_store_up``;
    the counts of a store that does not are left out rather than failing every workspace's metrics)."""
    state = server_state(request)
    gauges: dict[str, float] = {}
    for name, hosted in state.workspaces.items():
        if not who.may_use(name):
            continue
        label = f'{{workspace="{name}"}}'
        gauges[f"kgrag_jobs_running{label}"] = int(hosted.jobs.active() is not None)
        try:
            documents, chunks = sum(hosted.ws.documents.counts().values()), hosted.ws.documents.chunk_count()
        except StoreUnavailableError:
            gauges[f"kgrag_store_up{label}"] = 0
            continue
        gauges[f"kgrag_store_up{label}"] = 1
        gauges[f"kgrag_documents{label}"] = documents
        gauges[f"kgrag_chunks{label}"] = chunks
    return state.metrics.render(gauges)


def _workspace_row(hosted: HostedWorkspace) -> WorkspaceRow:
    try:
        documents, chunks = hosted.ws.documents.counts(), hosted.ws.documents.chunk_count()
    except StoreUnavailableError as exc:  # one workspace's database being down leaves the others listed
        return WorkspaceRow(name=hosted.name, documents={}, chunks=0, error=str(exc))
    return WorkspaceRow(name=hosted.name, documents=documents, chunks=chunks, error="")


@router.get("/workspaces", summary="Workspaces this key may use")
def workspaces(request: Request, who: CallerDep) -> list[WorkspaceRow]:
    state = server_state(request)
    return [_workspace_row(h) for name, h in state.workspaces.items() if who.may_use(name)]


@router.get("/workspaces/{workspace}", summary="Counts, models, LLM usage and failed documents")
def status(hosted: WorkspaceDep) -> dict[str, Any]:
    data = hosted.ws.status()
    data["workspace"] = hosted.name  # the name, not the server's directory
    data["failed"] = [{"error": hosted.scrub(f["error"])} for f in data["failed"]]
    return data


@workspace_router.get("/pipelines", summary="Retrieval pipelines and whether each can run here")
def pipelines(hosted: WorkspaceDep) -> list[PipelineRow]:
    return [
        PipelineRow(
            name=info.name,
            origin=info.origin,
            description=info.description,
            requirements=[RequirementRow(name=r.name, met=r.met, message=r.message) for r in info.requirements],
            error=info.error,
            ready=info.ready,
        )
        for info in hosted.ws.querying.pipelines()
    ]
