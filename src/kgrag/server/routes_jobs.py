"""``/v1/workspaces/{workspace}/jobs``: start an indexing job, watch its progress, cancel it.

Jobs run in their own thread (see :mod:`kgrag.server.jobs`): the request that starts one returns 202 at
once, and the job goes on whether or not anyone is still connected.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError
from kgrag.server.index_jobs import start_index_job
from kgrag.server.jobs import JobOut

router = APIRouter(tags=["jobs"])


class JobRequest(BaseModel):
    """What to run: ``index`` indexes the workspace's uploads (only new or changed files do work)."""

    kind: Literal["index"] = "index"
    pipeline: str | None = Field(None, description="Indexing pipeline (default: indexing.pipeline).")


@router.post("/jobs", status_code=202, summary="Start an indexing job")
def start_job(hosted: WorkspaceDep, body: JobRequest) -> JobOut:
    return start_index_job(hosted, body.pipeline)


@router.get("/jobs", summary="Jobs of this workspace, newest first")
def list_jobs(hosted: WorkspaceDep) -> list[JobOut]:
    return hosted.jobs.list()


@router.get("/jobs/{job_id}", summary="One job: state, progress per stage, report or error")
def get_job(hosted: WorkspaceDep, job_id: str) -> JobOut:
    job = hosted.jobs.get(job_id)
    if job is None:
        raise ApiError(404, "not_found", f"no job {job_id!r}")
    return job


@router.post("/jobs/{job_id}/cancel", status_code=202, summary="Ask a job to stop")
def cancel_job(hosted: WorkspaceDep, job_id: str) -> JobOut:
    job = hosted.jobs.cancel(job_id)
    if job is None:
        raise ApiError(404, "not_found", f"no job {job_id!r}")
    return job
