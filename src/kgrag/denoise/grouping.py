"""Candidate pairs inside blocks, and greedy union-find grouping with a chain-merge guard (deg-rag §4.1).

Pairs are merged best first until the target share of entities is gone or the similarity falls under
the threshold. Union-find alone chains: A≈B, B≈C, C≈D can fold "diabetes" into "insulin pump". Two
guards (``[denoise.groupers.greedy]``) stop that: a group never exceeds ``max_group`` entities, and every
member of a merged group must match the group's *anchor* (its most-mentioned entity) at least at
``anchor_floor``. A third guard keeps contrasting names ("correct password", "incorrect password") out
of one group.
"""

from __future__ import annotations

import numpy as np

from kgrag.config.denoise import DenoiseConfig
from kgrag.denoise.contrasts import contrasting_names
from kgrag.denoise.settings import BothMergerSettings, GreedyGrouperSettings
from kgrag.denoise.strings import StringSimilarity
from kgrag.denoise.types import Group, Grouper, Merger, Pair, ResolutionGraph


def block_pairs(vectors: np.ndarray, block: np.ndarray, candidates: int, floor: float) -> list[Pair]:
    """The ``candidates`` most similar partners of each entity of ``block`` scoring at least ``floor``."""
    m = len(block)
    if m < 2:
        return []
    sims = vectors[block] @ vectors[block].T
    np.fill_diagonal(sims, -np.inf)
    c = min(candidates, m - 1)
    top = np.argpartition(-sims, c - 1, axis=1)[:, :c]
    rows = np.repeat(np.arange(m), c)
    cols = top.ravel()
    scores = sims[rows, cols]
    keep = scores >= floor
    found: dict[tuple[int, int], float] = {}
    for i, j, s in zip(block[rows[keep]], block[cols[keep]], scores[keep], strict=True):
        a, b = (int(i), int(j)) if i < j else (int(j), int(i))
        found[(a, b)] = float(s)
    return [Pair(a, b, s) for (a, b), s in found.items()]


def filter_names(
    graph: ResolutionGraph, pairs: list[Pair], similarity: StringSimilarity | None, minimum: float
) -> list[Pair]:
    if similarity is None:
        return pairs
    return [p for p in pairs if similarity(graph.names[p.a], graph.names[p.b]) >= minimum]


class _Groups:
    """Union-find whose roots carry their members and anchor."""

    def __init__(self, graph: ResolutionGraph) -> None:
        self.parent = list(range(graph.size))
        self.members: dict[int, list[int]] = {}
        self.anchor: dict[int, int] = {}
        self.weakest: dict[int, float] = {}
        self.mentions = graph.mentions

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def members_of(self, root: int) -> list[int]:
        return self.members.get(root, [root])

    def better(self, a: int, b: int) -> int:
        """The anchor of two: more mentions, then the lower index (deterministic)."""
        return a if (-int(self.mentions[a]), a) <= (-int(self.mentions[b]), b) else b

    def union(self, ra: int, rb: int, anchor: int, score: float) -> None:
        members = self.members_of(ra) + self.members_of(rb)
        weakest = min(self.weakest.get(ra, 1.0), self.weakest.get(rb, 1.0), score)
        self.parent[rb] = ra
        self.members[ra] = members
        self.anchor[ra] = anchor
        self.weakest[ra] = weakest
        for r in (rb,):
            self.members.pop(r, None)
            self.anchor.pop(r, None)
            self.weakest.pop(r, None)


def _refusal(
    graph: ResolutionGraph, vectors: np.ndarray, groups: _Groups, roots: tuple[int, int], own: GreedyGrouperSettings
) -> str:
    """The guard that refuses joining the groups rooted at ``roots`` ("" when none does)."""
    ra, rb = roots
    left, right = groups.members_of(ra), groups.members_of(rb)
    union = left + right
    if len(union) > own.max_group:
        return "max_group"
    anchor_a, anchor_b = groups.anchor.get(ra, ra), groups.anchor.get(rb, rb)
    if own.same_type and graph.types[anchor_a] != graph.types[anchor_b]:
        return "type"
    anchor = groups.better(anchor_a, anchor_b)
    if len(union) > 2 and float(np.min(vectors[union] @ vectors[anchor])) < own.anchor_floor:
        return "anchor_floor"
    if any(contrasting_names(graph.names[i], graph.names[j]) for i in left for j in right):
        return "contrast"
    return ""


def group_pairs(
    graph: ResolutionGraph, vectors: np.ndarray, pairs: list[Pair], config: DenoiseConfig
) -> tuple[list[Group], dict[str, int]]:
    """Greedy union-find over ``pairs`` (best first) under the target, threshold and chain guards.

    ``vectors`` are the matcher's vectors: the anchor check uses the same similarity as the pairs. A union
    that would put two contrasting names (:mod:`kgrag.denoise.contrasts`) in one group is refused, so a
    third name cannot join opposites: the weaker link is the one left out, since pairs come best first.
    Returns the groups (canonical = anchor) and how many unions each guard refused.
    """
    target = int(config.target_reduction * graph.size)
    own = config.entry_settings("groupers", "greedy", GreedyGrouperSettings)
    groups = _Groups(graph)
    refused = {"max_group": 0, "anchor_floor": 0, "type": 0, "contrast": 0}
    merged = 0
    for pair in sorted(pairs, key=lambda p: (-p.score, p.a, p.b)):
        if merged >= target or pair.score < config.threshold:
            break
        ra, rb = groups.find(pair.a), groups.find(pair.b)
        if ra == rb:
            continue
        guard = _refusal(graph, vectors, groups, (ra, rb), own)
        if guard:
            refused[guard] += 1
            continue
        anchor = groups.better(groups.anchor.get(ra, ra), groups.anchor.get(rb, rb))
        groups.union(ra, rb, anchor, pair.score)
        merged += 1
    out = [
        Group(canonical=groups.anchor[root], members=sorted(members), score=groups.weakest[root])
        for root, members in groups.members.items()
    ]
    out.sort(key=lambda g: (-len(g.members), -g.score, g.canonical))
    return out, {f"refused_{k}": v for k, v in refused.items()}


def greedy_grouper(config: DenoiseConfig) -> Grouper:
    """``KINDS["resolution_grouper"]["greedy"]``: :func:`group_pairs`."""
    return group_pairs


def merge_all(group: Group, config: DenoiseConfig) -> str:
    return "merge"


def link_all(group: Group, config: DenoiseConfig) -> str:
    return "link"


def merge_or_link(group: Group, config: DenoiseConfig) -> str:
    """Confident groups (weakest link ≥ ``link_below``) are merged, the others only linked."""
    link_below = config.entry_settings("mergers", "both", BothMergerSettings).link_below
    return "merge" if group.score >= link_below else "link"


def direct_merger(config: DenoiseConfig) -> Merger:
    """``KINDS["resolution_merger"]["merge"]``: fold aliases into the canonical entity (deg-rag's best)."""
    return merge_all


def synonym_merger(config: DenoiseConfig) -> Merger:
    """``KINDS["resolution_merger"]["link"]``: keep every node, add a ``same_as`` relation per alias."""
    return link_all


def mixed_merger(config: DenoiseConfig) -> Merger:
    """``KINDS["resolution_merger"]["both"]``: merge the confident groups, link the rest."""
    return merge_or_link
