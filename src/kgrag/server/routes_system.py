"""Health, metrics, the workspaces a key may use, a workspace's status and its pipelines."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from kgrag import __version__
from kgrag.server.deps import CallerDep, WorkspaceDep
from kgrag.server.state import server_state

public = APIRouter(tags=["system"])
router = APIRouter(tags=["system"])
workspace_router = APIRouter(tags=["workspaces"])


@public.get("/health", summary="Liveness (no key needed; says nothing about the data)")
def health(request: Request) -> dict[str, Any]:
    return {"status": "ok", "version": __version__, "auth": bool(server_state(request).keys)}


@router.get("/metrics", response_class=PlainTextResponse, summary="Prometheus metrics")
def metrics(request: Request, who: CallerDep) -> str:
    state = server_state(request)
    gauges: dict[str, float] = {}
    for name, hosted in state.workspaces.items():
        if not who.may_use(name):
            continue
        gauges[f'kgrag_documents{{workspace="{name}"}}'] = sum(hosted.ws.documents.counts().values())
        gauges[f'kgrag_chunks{{workspace="{name}"}}'] = hosted.ws.documents.chunk_count()
        gauges[f'kgrag_jobs_running{{workspace="{name}"}}'] = int(hosted.jobs.active() is not None)
    return state.metrics.render(gauges)


@router.get("/workspaces", summary="Workspaces this key may use")
def workspaces(request: Request, who: CallerDep) -> list[dict[str, Any]]:
    state = server_state(request)
    return [
        {"name": name, "documents": h.ws.documents.counts(), "chunks": h.ws.documents.chunk_count()}
        for name, h in state.workspaces.items()
        if who.may_use(name)
    ]


@router.get("/workspaces/{workspace}", summary="Counts, models, LLM usage and failed documents")
def status(hosted: WorkspaceDep) -> dict[str, Any]:
    data = hosted.ws.status()
    data["workspace"] = hosted.name  # the name, not the server's directory
    data["failed"] = [{"error": hosted.scrub(f["error"])} for f in data["failed"]]
    return data


@workspace_router.get("/pipelines", summary="Retrieval pipelines and whether each can run here")
def pipelines(hosted: WorkspaceDep) -> list[dict[str, Any]]:
    return [{**asdict(info), "ready": info.ready} for info in hosted.ws.querying.pipelines()]
