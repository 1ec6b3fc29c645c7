"""The in-memory view entity resolution works on, and the plan it produces.

Resolution is planned over arrays (entity index → vector, type, neighbours), not over store records, so
blocking and matching are NumPy work whose cost is measurable on a synthetic 100k-entity graph
(``bench/bench_resolution.py``) and independent of the backend.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from kgrag.config.denoise import DenoiseConfig


@dataclass(frozen=True)
class ResolutionGraph:
    """Entities as parallel arrays: ``vectors`` are L2-normalised ego vectors (float32, one row each),
    ``mentions`` how often each entity was mentioned, ``neighbours[i]`` the indices adjacent to i."""

    ids: list[str]
    keys: list[str]
    names: list[str]
    types: list[str]
    mentions: np.ndarray
    vectors: np.ndarray
    neighbours: list[np.ndarray]
    held_apart: frozenset[frozenset[str]] = frozenset()
    """Entity-key pairs never to be merged (split apart by hand)."""

    @property
    def size(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Pair:
    """A candidate match between entities ``a`` < ``b`` (indices) with its similarity."""

    a: int
    b: int
    score: float


@dataclass
class Group:
    """Entities to resolve into one: ``canonical`` (an index) and the others, with the weakest link."""

    canonical: int
    members: list[int]
    score: float
    mode: str = "merge"
    reason: str = ""

    @property
    def aliases(self) -> list[int]:
        return [m for m in self.members if m != self.canonical]


@dataclass
class ResolutionPlan:
    """What resolution would do, plus counts per step for the report."""

    groups: list[Group] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def merged_away(self) -> int:
        return sum(len(g.aliases) for g in self.groups if g.mode == "merge")


# A blocker splits entity indices into blocks that may hold matches; a matcher gives the vectors whose
# cosine is the similarity (combinations are weighted concatenations) and may rescore candidate pairs.
Blocker = Callable[[ResolutionGraph, DenoiseConfig], list[np.ndarray]]
BlockerFactory = Callable[[DenoiseConfig], Blocker]


class Matcher:
    """Similarity of two entities: cosine of :meth:`vectors` rows (rescored by :meth:`rescore` if needed)."""

    name = "matcher"

    def vectors(self, graph: ResolutionGraph) -> np.ndarray:
        raise NotImplementedError

    def rescore(self, graph: ResolutionGraph, pairs: list[Pair]) -> list[Pair]:
        return pairs


MatcherFactory = Callable[[DenoiseConfig], Matcher]

# A grouper turns scored pairs into groups (and counts of refused unions); a merger decides per group
# whether it is merged or linked.
Grouper = Callable[[ResolutionGraph, np.ndarray, list[Pair], DenoiseConfig], tuple[list[Group], dict[str, int]]]
GrouperFactory = Callable[[DenoiseConfig], Grouper]
Merger = Callable[[Group, DenoiseConfig], str]
MergerFactory = Callable[[DenoiseConfig], Merger]
