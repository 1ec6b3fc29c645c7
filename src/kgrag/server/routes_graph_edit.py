"""``/v1/workspaces/{workspace}/graph/edits``: hand edits of the graph (rename an entity, rewrite its
description, merge two entities, delete a relation) and their log, via ``ws.graph.edit``.

Each edit is an undoable denoising run (``kgrag graph undo-denoise``) and outlives re-indexing
(:mod:`kgrag.denoise.edits`). Like a document removal, an edit is refused (409) while an indexing job
runs in the workspace.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from kgrag.core.errors import KgragError
from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError

router = APIRouter(tags=["graph"])


class GraphEdit(BaseModel):
    """``rename``/``describe``: ``target`` is the entity, ``value`` its new name or description;
    ``merge``: ``value`` (an entity id) is folded into ``target``; ``split``: ``value`` (a name merged into
    ``target``, or the id its entity had) is taken back out; ``delete-relation``: ``target`` is the relation."""

    op: Literal["rename", "describe", "merge", "split", "delete-relation"]
    target: str = Field(min_length=1, max_length=200)
    value: str = Field("", max_length=20_000)


class EditEntry(BaseModel):
    """One line of the edit log."""

    run_id: str = Field(description="The denoising run the edit is (undo it with `kgrag graph undo-denoise`).")
    at: str
    op: str
    target: str
    before: str
    after: str
    status: str = Field(description="applied, or undone")
    merged_id: str | None = Field(None, description="merge: the entity folded into ``target`` (gone now).")
    split_id: str | None = Field(None, description="split: the entity taken back out of ``target``.")


@router.post(
    "/graph/edits",
    response_model=EditEntry,
    summary="Edit the graph: rename, describe, merge, split or delete a relation (logged, undoable)",
    responses={404: {"description": "No such entity or relation."}, 409: {"description": "A job runs."}},
)
def edit(hosted: WorkspaceDep, body: GraphEdit) -> dict[str, Any]:
    with hosted.jobs.exclusive("edit the graph"):
        try:
            return hosted.ws.graph.edit(body.op, body.target, body.value)
        except KgragError as exc:
            missing = str(exc).startswith("no ")
            raise ApiError(404 if missing else 400, "not_found" if missing else "bad_request", str(exc)) from exc


@router.get("/graph/edits", response_model=list[EditEntry], summary="The log of hand edits, oldest first")
def edits(hosted: WorkspaceDep) -> list[dict[str, Any]]:
    return hosted.ws.graph.edits()
