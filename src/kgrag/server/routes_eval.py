"""``/v1/workspaces/{workspace}/eval``: the evaluation reports a workspace holds, via ``ws.eval``.

Evaluations are started with ``kgrag eval`` (they take minutes to hours); the server lists and shows
their reports. Runs that issue #12 stores will appear here through the same ``ws.eval.runs()``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter

from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError

router = APIRouter(tags=["evaluation"])


@router.get("/eval/runs", summary="Evaluation runs, newest first")
def runs(hosted: WorkspaceDep) -> list[dict[str, Any]]:
    return [asdict(run) for run in hosted.ws.eval.runs()]


@router.get("/eval/runs/{run_id:path}", summary="One evaluation report")
def report(hosted: WorkspaceDep, run_id: str) -> dict[str, Any]:
    found = hosted.ws.eval.report(run_id)
    if found is None:
        raise ApiError(404, "not_found", f"no evaluation run {run_id!r}")
    return found
