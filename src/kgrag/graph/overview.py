"""The whole graph as a browser draws it: a bounded set of nodes with their community, degree and a
ready layout, and the edges among them.

A graph of 10⁴ entities is too much for a first paint, so when the filtered graph exceeds ``max_nodes``
the overview keeps the largest communities, each with a share of the budget in proportion to its size
filled by its best-connected members; what was left out is counted, never hidden. The layout is computed
here with igraph (Fruchterman-Reingold per connected component from a fixed start, so a view is
reproducible; components packed in rows) so the page paints positioned nodes at once and its own physics
stays optional. Communities come from the store's hierarchy
(``kgrag graph communities``) at the chosen level; without one they are detected on the spot with igraph's
greedy modularity and said to be so.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import TypedDict

from kgrag.core.community_records import CommunityRecord
from kgrag.core.graph_records import RelationRecord
from kgrag.graph.index import GraphIndex

MAX_EDGES_PER_NODE = 3
GRID_LAYOUT_FROM = 300
SPACING = 40.0
DEFAULT_COLOUR_COMMUNITIES = 40


@dataclass(frozen=True)
class OverviewQuery:
    """What to draw: at most ``max_nodes`` entities of ``type`` (any when None) with at least
    ``min_degree`` relations, inside ``community`` (any level) when given, coloured by ``level``."""

    max_nodes: int = 1000
    level: int | None = None
    type: str | None = None
    min_degree: int = 0
    community: str | None = None


@dataclass
class Membership:
    """Entity → community at one level, where it came from, and the levels there are."""

    of: dict[str, str]
    level: int | None
    source: str
    levels: list[dict[str, int]] = field(default_factory=list)


def _degrees(index: GraphIndex) -> dict[str, int]:
    return {eid: len(index.adjacency.get(eid, ())) for eid in index.entities}


def _default_level(by_level: dict[int, list[CommunityRecord]]) -> int:
    """The finest level with few enough communities to tell apart by colour, else the coarsest."""
    for level in sorted(by_level):
        if len(by_level[level]) <= DEFAULT_COLOUR_COMMUNITIES:
            return level
    return max(by_level)


def _detected(index: GraphIndex) -> dict[str, str]:
    """Communities of the whole graph by igraph's greedy modularity (no stored hierarchy)."""
    import igraph

    ids = sorted(index.entities)
    position = {eid: i for i, eid in enumerate(ids)}
    pairs = {
        tuple(sorted((position[r.source_id], position[r.target_id])))
        for r in index.relations.values()
        if r.source_id in position and r.target_id in position and r.source_id != r.target_id
    }
    graph = igraph.Graph(n=len(ids), edges=sorted(pairs))
    # Greedy modularity merges are deterministic (multilevel and Leiden draw on igraph's global random
    # generator), so every view of one graph shows the same communities under the same ids.
    parts = graph.community_fastgreedy().as_clustering().membership if pairs else list(range(len(ids)))
    return {eid: f"detected-{parts[i]}" for i, eid in enumerate(ids)}


def membership(index: GraphIndex, communities: Sequence[CommunityRecord], level: int | None) -> Membership:
    """Which community each entity belongs to at ``level`` (the default level when None)."""
    by_level: dict[int, list[CommunityRecord]] = defaultdict(list)
    for record in communities:
        by_level[record.level].append(record)
    if not by_level:
        return Membership(_detected(index), None, "detected")
    levels = [{"level": lv, "communities": len(rows)} for lv, rows in sorted(by_level.items())]
    chosen = level if level in by_level else _default_level(by_level)
    of = {eid: record.id for record in by_level[chosen] for eid in record.entity_ids}
    return Membership(of, chosen, "stored", levels)


def _matches(
    index: GraphIndex, degree: dict[str, int], query: OverviewQuery, inside: frozenset[str] | None
) -> list[str]:
    wanted_type = query.type.casefold() if query.type else None
    return [
        eid
        for eid, entity in index.entities.items()
        if degree[eid] >= query.min_degree
        and (wanted_type is None or entity.type.casefold() == wanted_type)
        and (inside is None or eid in inside)
    ]


def _sample(matched: list[str], degree: dict[str, int], community_of: dict[str, str], budget: int) -> list[str]:
    """At most ``budget`` entities: each community gets its share of the budget in proportion to its size
    (rounded down, largest communities first), filled with its best-connected members; the room left goes
    to the best-connected entities not yet kept, wherever they are (so a graph with thousands of
    singletons does not spend its budget on them)."""
    if len(matched) <= budget:
        return matched
    groups: dict[str, list[str]] = defaultdict(list)
    for eid in matched:
        groups[community_of.get(eid, "")].append(eid)
    kept: list[str] = []
    for members in sorted(groups.values(), key=lambda g: (-len(g), min(g))):
        share = min(budget - len(kept), budget * len(members) // len(matched))
        if share <= 0:
            break
        kept += sorted(members, key=lambda e: (-degree[e], e))[:share]
    chosen = set(kept)
    rest = sorted((e for e in matched if e not in chosen), key=lambda e: (-degree[e], e))
    return kept + rest[: budget - len(kept)]


class OverviewEdge(TypedDict):
    """The strongest relation between two shown entities."""

    id: str
    source: str
    target: str
    label: str
    weight: float


class CommunityRow(TypedDict):
    """A community drawn: how many of its entities matched and how many are shown."""

    id: str
    matched: int
    shown: int
    title: str


def _edges(index: GraphIndex, kept: set[str], limit: int) -> list[OverviewEdge]:
    """One edge per pair of kept entities (the strongest relation), strongest first, at most ``limit``."""
    best: dict[tuple[str, str], RelationRecord] = {}
    for eid in kept:
        for rid in index.adjacency.get(eid, ()):
            relation = index.relations[rid]
            if relation.source_id not in kept or relation.target_id not in kept:
                continue
            if relation.source_id == relation.target_id:
                continue
            pair = (min(relation.source_id, relation.target_id), max(relation.source_id, relation.target_id))
            if pair not in best or relation.weight > best[pair].weight:
                best[pair] = relation
    ranked = sorted(best.values(), key=lambda r: (-r.weight, r.id))[:limit]
    return [
        OverviewEdge(id=r.id, source=r.source_id, target=r.target_id, label=r.label, weight=r.weight) for r in ranked
    ]


def _component_layout(graph: Any, size: int) -> list[tuple[float, float]]:
    """One connected component in a box of side ``SPACING·√size`` with its corner at the origin."""
    if size == 1:
        return [(0.0, 0.0)]
    # The grid variant only weighs repulsion between nearby nodes: much faster on large components, alike to the eye.
    rng = random.Random(size)  # a fixed, scattered start (igraph's own start is random)
    half = math.sqrt(size)
    start = [[rng.uniform(-half, half), rng.uniform(-half, half)] for _ in range(size)]
    coords = graph.layout_fruchterman_reingold(niter=300, seed=start, grid=size > GRID_LAYOUT_FROM)
    xs, ys = [c[0] for c in coords], [c[1] for c in coords]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    side = SPACING * size**0.5
    return [((x - min(xs)) * side / span, (y - min(ys)) * side / span) for x, y in zip(xs, ys, strict=True)]


def layout(ids: list[str], edges: Sequence[OverviewEdge]) -> list[tuple[float, float]]:
    """Positions for ``ids``: each connected component laid out on its own (Fruchterman-Reingold), then
    the components packed in rows, largest first, so small ones do not drift to the rim of a big one."""
    import igraph

    if not ids:
        return []
    position = {eid: i for i, eid in enumerate(ids)}
    graph = igraph.Graph(n=len(ids), edges=[(position[e["source"]], position[e["target"]]) for e in edges])
    components = sorted(graph.connected_components(), key=lambda c: (-len(c), c[0]))
    row_width = SPACING * (2.2 * len(ids)) ** 0.5
    placed: list[tuple[float, float]] = [(0.0, 0.0)] * len(ids)
    x = y = row_height = 0.0
    for members in components:
        local = _component_layout(graph.subgraph(members), len(members))
        width = max(c[0] for c in local) + SPACING
        height = max(c[1] for c in local) + SPACING
        if x > 0 and x + width > row_width:
            x, y, row_height = 0.0, y + row_height, 0.0
        for vertex, (lx, ly) in zip(members, local, strict=True):
            placed[vertex] = (lx + x, ly + y)
        x += width
        row_height = max(row_height, height)
    cx = (max(p[0] for p in placed) + min(p[0] for p in placed)) / 2
    cy = (max(p[1] for p in placed) + min(p[1] for p in placed)) / 2
    return [(round(px - cx, 1), round(py - cy, 1)) for px, py in placed]


def _community_rows(
    kept: list[str], matched: list[str], member: Membership, titles: dict[str, str]
) -> list[CommunityRow]:
    shown: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    for eid in matched:
        total[member.of.get(eid, "")] += 1
    for eid in kept:
        shown[member.of.get(eid, "")] += 1
    order = sorted((cid for cid in shown if cid), key=lambda cid: (-total[cid], cid))
    return [CommunityRow(id=cid, matched=total[cid], shown=shown[cid], title=titles.get(cid, "")) for cid in order]


def graph_overview(
    index: GraphIndex,
    communities: Sequence[CommunityRecord],
    titles: dict[str, str],
    query: OverviewQuery,
) -> dict[str, Any]:
    """Nodes (id, name, type, degree, community, x, y), edges (id, source, target, label, weight), the
    communities drawn, and the counts that say how much was left out."""
    degree = _degrees(index)
    member = membership(index, communities, query.level)
    inside = None
    if query.community:
        chosen = next((c for c in communities if c.id == query.community), None)
        inside = (
            frozenset(chosen.entity_ids)
            if chosen
            else frozenset(eid for eid, cid in member.of.items() if cid == query.community)
        )
    matched = _matches(index, degree, query, inside)
    kept = _sample(matched, degree, member.of, query.max_nodes)
    edges = _edges(index, set(kept), MAX_EDGES_PER_NODE * max(len(kept), 1))
    coords = layout(kept, edges)
    types: dict[str, int] = defaultdict(int)
    for entity in index.entities.values():
        types[entity.type] += 1
    nodes = []
    for eid, (x, y) in zip(kept, coords, strict=True):
        entity = index.entities[eid]
        nodes.append(
            {
                "id": eid,
                "name": entity.name,
                "type": entity.type,
                "degree": degree[eid],
                "community": member.of.get(eid, ""),
                "x": x,
                "y": y,
            }
        )
    return {
        "total": {"entities": len(index.entities), "relations": len(index.relations)},
        "matched": len(matched),
        "sampled": len(kept) < len(matched),
        "level": member.level,
        "levels": member.levels,
        "community_source": member.source,
        "types": [{"type": t, "count": n} for t, n in sorted(types.items(), key=lambda kv: (-kv[1], kv[0]))],
        "communities": _community_rows(kept, matched, member, titles),
        "nodes": nodes,
        "edges": edges,
    }
