"""``/v1/workspaces/{workspace}/graph``: stats, entity search, one entity, its neighbourhood, and
community levels and reports, via ``ws.graph`` and ``ws.communities`` only."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Query

from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError

router = APIRouter(tags=["graph"])


@router.get("/graph/stats", summary="Graph size and shape")
def stats(hosted: WorkspaceDep, top: Annotated[int, Query(ge=1, le=100)] = 10) -> dict[str, Any]:
    """Counts always; the igraph statistics (degrees, clustering, components, hubs) when there is a graph."""
    counts = hosted.ws.graph.counts()
    shape = asdict(hosted.ws.graph.stats(top)) if counts.get("entities") else None
    return {"counts": counts, "stats": shape}


@router.get("/graph/entities", summary="Find entities by name")
def search(
    hosted: WorkspaceDep,
    q: Annotated[str, Query(min_length=1, max_length=200, description="Part of the entity's name.")],
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> list[dict[str, Any]]:
    return [asdict(e) for e in hosted.ws.graph.search_entities(q, limit)]


@router.get("/graph/entities/{entity_id}/neighbourhood", summary="Entities and relations around an entity")
def neighbourhood(
    hosted: WorkspaceDep,
    entity_id: str,
    depth: Annotated[int, Query(ge=1, le=3)] = 1,
    limit: Annotated[int, Query(ge=1, le=300)] = 50,
    offset: Annotated[int, Query(ge=0, le=100_000, description="Skip this many neighbours (the next page).")] = 0,
) -> dict[str, Any]:
    """The centre and up to ``limit`` neighbours ranked after ``offset`` (strongest relations first);
    ``truncated`` says more follow: ask again with ``offset + limit``."""
    found = hosted.ws.graph.neighbourhood(entity_id, depth, limit, offset)
    if found is None:
        raise ApiError(404, "not_found", f"no entity {entity_id!r}")
    return asdict(found)


@router.get("/graph/communities", summary="Community levels and reports")
def communities(
    hosted: WorkspaceDep,
    level: Annotated[int | None, Query(ge=0, le=20, description="Only this level (0 = finest).")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> dict[str, Any]:
    """Per-level counts and modularity, and the most important reports (``ws.communities``). An empty
    ``levels`` list means communities were not built yet: `kgrag graph communities` builds them."""
    api = hosted.ws.communities
    reports = [{**asdict(r), "text": r.text} for r in api.reports(level, limit)]
    return {"overview": api.overview().to_dict(), "reports": reports}


@router.get("/graph/overview", summary="The whole graph (or its largest communities) with a layout")
def overview(
    hosted: WorkspaceDep,
    max_nodes: Annotated[int, Query(ge=1, le=5000, description="Most entities to return.")] = 1000,
    level: Annotated[int | None, Query(ge=0, le=20, description="Community level to colour by.")] = None,
    type: Annotated[str | None, Query(max_length=100, description="Only entities of this type.")] = None,
    min_degree: Annotated[int, Query(ge=0, le=100_000, description="Only entities with this many relations.")] = 0,
    community: Annotated[str | None, Query(max_length=200, description="Only this community's entities.")] = None,
) -> dict[str, Any]:
    """Nodes with their community, degree and a server-side layout (x, y), and the strongest edge between
    each pair of them. When more entities match than ``max_nodes``, the largest communities are kept,
    each in proportion to its size, by degree; ``matched`` and ``sampled`` say so."""
    from kgrag.graph.overview import OverviewQuery

    query = OverviewQuery(max_nodes, level, type or None, min_degree, community or None)
    return hosted.ws.graph.overview(query)
