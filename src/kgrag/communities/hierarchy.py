"""A community hierarchy as arrays, the builder protocol, and the conversion to stored records.

Builders work on an igraph graph and return one membership array per level (level 0 finest), so they
never see entity ids or the store and can be benchmarked on a synthetic graph of a million nodes.
:func:`to_records` turns the arrays into :class:`CommunityRecord` s with content-derived ids and parent
links, :func:`level_stats` adds the modularity of every level on the weighted graph.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import igraph as ig
import numpy as np

from kgrag.config import CommunitiesConfig
from kgrag.core.community_records import CommunityRecord, LevelStats, community_id

WEIGHT = "weight"


@dataclass(frozen=True)
class Hierarchy:
    """``memberships[l][v]``: the community label of vertex ``v`` at level ``l`` (0 = finest; labels are
    0..n-1 per level). Every vertex has a community on every level; a community that was not split
    again appears on the next level down as its own single child."""

    memberships: tuple[np.ndarray, ...]

    @property
    def levels(self) -> int:
        return len(self.memberships)


class CommunityBuilder(Protocol):
    """Partitions a weighted undirected graph (edge attribute ``weight``) into a hierarchy."""

    name: str

    def build(self, graph: ig.Graph) -> Hierarchy: ...


BuilderFactory = Callable[[CommunitiesConfig], CommunityBuilder]
"""What ``KINDS["community_builder"]`` entries point at."""


def compact(labels: np.ndarray) -> np.ndarray:
    """Relabel to 0..k-1 in order of first appearance, so equal partitions get equal arrays."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first, kind="stable"), kind="stable")
    return order[inverse].astype(np.int64)


def parents(child: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """For each child label, the parent label holding most of its vertices (exact for nested levels;
    the majority for multi-resolution levels, which need not nest)."""
    n_child = int(child.max()) + 1 if child.size else 0
    width = int(parent.max()) + 1 if parent.size else 1
    pairs, counts = np.unique(child.astype(np.int64) * width + parent, return_counts=True)
    pair_child, pair_parent = pairs // width, pairs % width
    order = np.lexsort((pair_parent, -counts, pair_child))
    out = np.full(n_child, -1, dtype=np.int64)
    seen = np.zeros(n_child, dtype=bool)
    for index in order:
        c = int(pair_child[index])
        if not seen[c]:
            out[c], seen[c] = pair_parent[index], True
    return out


def _groups(labels: np.ndarray) -> list[np.ndarray]:
    """Vertex indices of each label, in label order."""
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    return np.split(order, bounds) if labels.size else []


def to_records(hierarchy: Hierarchy, entity_ids: Sequence[str]) -> list[CommunityRecord]:
    """Stored communities of every level with ids, parent links and child counts."""
    ids_per_level: list[list[str]] = []
    members_per_level: list[list[tuple[str, ...]]] = []
    for level, labels in enumerate(hierarchy.memberships):
        members = [tuple(sorted(entity_ids[int(v)] for v in group)) for group in _groups(labels)]
        members_per_level.append(members)
        ids_per_level.append([community_id(level, m) for m in members])
    records: list[CommunityRecord] = []
    for level, labels in enumerate(hierarchy.memberships):
        up = hierarchy.memberships[level + 1] if level + 1 < hierarchy.levels else None
        links = parents(labels, up) if up is not None else None
        down = hierarchy.memberships[level - 1] if level > 0 else None
        children = np.bincount(parents(down, labels), minlength=len(ids_per_level[level])) if down is not None else None
        for label, cid in enumerate(ids_per_level[level]):
            parent = ids_per_level[level + 1][int(links[label])] if links is not None else None
            n_children = int(children[label]) if children is not None else 0
            records.append(CommunityRecord(cid, level, parent, members_per_level[level][label], n_children))
    return records


def level_stats(graph: ig.Graph, hierarchy: Hierarchy) -> list[LevelStats]:
    """Count and weighted modularity of every level (0 for a graph without edges)."""
    weights = graph.es[WEIGHT] if graph.ecount() and WEIGHT in graph.es.attributes() else None
    out = []
    for level, labels in enumerate(hierarchy.memberships):
        q = graph.modularity(labels.tolist(), weights=weights) if graph.ecount() else 0.0
        out.append(LevelStats(level, int(labels.max()) + 1 if labels.size else 0, round(float(q), 6)))
    return out


def top_down(levels_from_top: list[np.ndarray]) -> Hierarchy:
    """Turn partitions ordered coarse → fine into a hierarchy with level 0 the finest."""
    return Hierarchy(tuple(compact(labels) for labels in reversed(levels_from_top)))


def config_signature(config: CommunitiesConfig) -> str:
    """What a hierarchy depends on besides the graph; a change rebuilds it. The Leiden knobs are read from
    the chosen builder's table (the `leiden` table for a builder without them), in the order the signature
    always had, so a workspace keeps its communities across the move of these keys into the tables."""
    from kgrag.communities.builder_settings import LeidenSettings, MultiResolutionSettings

    name = config.builder if config.builder in ("leiden", "graspologic") else "leiden"
    leiden = config.entry_settings("builders", name, LeidenSettings)
    multires = config.entry_settings("builders", "leiden-multires", MultiResolutionSettings)
    run = multires if config.builder == "leiden-multires" else leiden
    parts = (config.builder, leiden.max_cluster_size, leiden.max_levels, run.seed, leiden.resolution)
    return "|".join(str(p) for p in (*parts, run.iterations, tuple(multires.resolutions)))
