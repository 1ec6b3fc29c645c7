"""``/v1/workspaces/{workspace}/eval``: the evaluation runs a workspace stores, via ``ws.eval``.

Evaluations are started with ``kgrag eval run`` / ``kgrag eval pairwise`` (they take minutes to hours);
the server lists the stored runs and shows one with its scores summary.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Query

from kgrag.core.errors import KgragError
from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError

router = APIRouter(tags=["evaluation"])


@router.get("/eval/runs", summary="Stored evaluation runs, newest first")
def runs(
    hosted: WorkspaceDep, kind: Annotated[str | None, Query(pattern="^(run|pairwise)$")] = None
) -> list[dict[str, Any]]:
    return [
        {"id": r.id, "kind": r.kind, "created_at": r.created_at, "dataset": r.dataset, "label": r.label}
        for r in hosted.ws.eval.runs(kind)
    ]


@router.get("/eval/runs/{run_id}", summary="One stored run: its settings, judges and summary")
def report(hosted: WorkspaceDep, run_id: str) -> dict[str, Any]:
    try:
        found = hosted.ws.eval.get_run(run_id)
    except KgragError as exc:
        raise ApiError(404, "not_found", str(exc)) from exc
    return {"record": asdict(found.record), "summary": found.summary}
