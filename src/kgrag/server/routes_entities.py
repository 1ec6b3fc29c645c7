"""``/v1/workspaces/{workspace}/graph/entities/{entity_id}``: one entity as a detail panel shows it — its
description, other names, degree, the passages it was extracted from (a snippet around the name each) and
the communities it belongs to with their titles and summaries."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from kgrag.core.records import ChunkRecord
from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError
from kgrag.server.state import HostedWorkspace

router = APIRouter(tags=["graph"])

SNIPPET_CHARS = 240


class EntityPassage(BaseModel):
    """A passage the entity was extracted from, cut around the entity's name."""

    chunk_id: str
    snippet: str
    document_id: str
    source_name: str


class EntityCommunity(BaseModel):
    """A community holding the entity (level 0 is the finest)."""

    level: int
    id: str
    title: str = Field(description="The report's title; empty until reports are built.")
    summary: str
    size: int


class EntityDetailOut(BaseModel):
    """One entity with its aliases, passages and communities."""

    id: str
    name: str
    type: str
    description: str
    aliases: list[str] = Field(description="Other names: aliases denoising merged into this entity or linked to it.")
    merged: list[str] = Field(
        default_factory=list, description="Names merged into this entity (a `split` edit takes one back out)."
    )
    degree: int
    passages: list[EntityPassage]
    passages_total: int = Field(description="Passages the entity comes from in all (``passages`` lists the first).")
    communities: list[EntityCommunity]


def snippet(text: str, name: str, width: int = SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``text`` around the first mention of ``name`` (the start when the
    name does not occur as written), cut at spaces and marked with ``…`` where cut."""
    at = text.casefold().find(name.casefold()) if name else -1
    start = max(0, (at if at >= 0 else 0) - width // 3)
    end = min(len(text), start + width)
    start = max(0, min(start, end - width))
    if start > 0:
        space = text.find(" ", start, start + 30)
        start = space + 1 if space >= 0 else start
    if end < len(text):
        space = text.rfind(" ", end - 30, end)
        end = space if space > start else end
    body = " ".join(text[start:end].split())
    return ("…" if start > 0 else "") + body + ("…" if end < len(text) else "")


def _passages(hosted: HostedWorkspace, chunk_ids: list[str], name: str) -> list[EntityPassage]:
    chunks: list[ChunkRecord] = hosted.ws.documents.chunks(chunk_ids)
    documents = {doc_id: hosted.ws.documents.get(doc_id) for doc_id in {c.doc_id for c in chunks}}
    out = []
    for chunk in chunks:
        document = documents.get(chunk.doc_id)
        source = hosted.source_name(document.source) if document else ""
        out.append(
            EntityPassage(
                chunk_id=chunk.id, snippet=snippet(chunk.text, name), document_id=chunk.doc_id, source_name=source
            )
        )
    return out


@router.get(
    "/graph/entities/{entity_id}",
    response_model=EntityDetailOut,
    summary="One entity: description, aliases, degree, passages and communities",
    responses={404: {"description": "No such entity."}},
)
def entity(
    hosted: WorkspaceDep,
    entity_id: str,
    passages: Annotated[int, Query(ge=0, le=200, description="How many passages to list.")] = 20,
) -> EntityDetailOut:
    detail = hosted.ws.graph.entity(entity_id)
    if detail is None:
        raise ApiError(404, "not_found", f"no entity {entity_id[:80]!r}; entity ids come from graph search")
    view = detail.entity
    return EntityDetailOut(
        id=view.id,
        name=view.name,
        type=view.type,
        description=view.description,
        aliases=detail.aliases,
        merged=detail.merged,
        degree=view.degree,
        passages=_passages(hosted, view.chunk_ids[:passages], view.name),
        passages_total=len(view.chunk_ids),
        communities=[
            EntityCommunity(
                level=c.level,
                id=c.id,
                title=report.title if report else "",
                summary=report.summary if report else "",
                size=c.size,
            )
            for c, report in detail.communities
        ],
    )
