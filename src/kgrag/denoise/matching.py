"""Matching strategies (deg-rag §4.1): how similar two entities in one block are.

* ``ego``: cosine of the entities' own vectors (name + type + description by default);
* ``neighbour``: cosine of the mean vectors of their neighbours (same role in the graph);
* ``typed-neighbour``: per neighbour type, cosine of the type's mean neighbour vectors, averaged over the
  types either entity has (a missing type counts 0, so "same neighbours of a different kind" scores low);
* ``ego+neighbour`` / ``ego+typed-neighbour``: ``ego_weight`` · ego + (1 − ego_weight) · the other.

The combined ego+neighbour similarity is the cosine of the concatenation ``[√w·ego, √(1−w)·neighbour]``
(both parts unit length), so candidates are still found with one matrix product per block.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from kgrag.config.denoise import DenoiseConfig
from kgrag.denoise.settings import EgoMixSettings
from kgrag.denoise.types import Matcher, Pair, ResolutionGraph


def _normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (x / norms).astype(np.float32)


def adjacency(graph: ResolutionGraph) -> sp.csr_matrix:
    rows = np.repeat(np.arange(graph.size), [len(n) for n in graph.neighbours])
    cols = np.concatenate(graph.neighbours) if graph.size else np.zeros(0, dtype=np.int64)
    return sp.csr_matrix((np.ones(len(cols), dtype=np.float32), (rows, cols)), shape=(graph.size, graph.size))


def neighbour_means(graph: ResolutionGraph) -> np.ndarray:
    """Unit mean vector of each entity's neighbours (a zero row for isolated entities)."""
    return _normalise(np.asarray(adjacency(graph) @ graph.vectors))


def typed_neighbour_similarity(graph: ResolutionGraph, a: int, b: int) -> float:
    """Mean over neighbour types of the cosine of the two type-specific neighbour means."""

    def means(i: int) -> dict[str, np.ndarray]:
        by_type: dict[str, list[int]] = {}
        for n in graph.neighbours[i]:
            by_type.setdefault(graph.types[int(n)], []).append(int(n))
        out = {}
        for kind, members in by_type.items():
            v = graph.vectors[members].mean(axis=0)
            norm = float(np.linalg.norm(v))
            out[kind] = v / norm if norm else v
        return out

    ma, mb = means(a), means(b)
    kinds = set(ma) | set(mb)
    if not kinds:
        return 0.0
    return float(sum(float(ma[t] @ mb[t]) for t in set(ma) & set(mb)) / len(kinds))


class EgoMatcher(Matcher):
    name = "ego"

    def vectors(self, graph: ResolutionGraph) -> np.ndarray:
        return graph.vectors


class NeighbourMatcher(Matcher):
    name = "neighbour"

    def vectors(self, graph: ResolutionGraph) -> np.ndarray:
        return neighbour_means(graph)


class TypedNeighbourMatcher(NeighbourMatcher):
    """Candidates by neighbour means, scored by :func:`typed_neighbour_similarity`."""

    name = "typed-neighbour"

    def rescore(self, graph: ResolutionGraph, pairs: list[Pair]) -> list[Pair]:
        return [Pair(p.a, p.b, typed_neighbour_similarity(graph, p.a, p.b)) for p in pairs]


class EgoNeighbourMatcher(Matcher):
    name = "ego+neighbour"

    def __init__(self, ego_weight: float) -> None:
        self.ego_weight = ego_weight

    def vectors(self, graph: ResolutionGraph) -> np.ndarray:
        w = self.ego_weight
        return np.hstack([np.sqrt(w) * graph.vectors, np.sqrt(1 - w) * neighbour_means(graph)]).astype(np.float32)


class EgoTypedNeighbourMatcher(EgoNeighbourMatcher):
    """Candidates by ego+neighbour, scored as w·ego + (1 − w)·typed-neighbour."""

    name = "ego+typed-neighbour"

    def rescore(self, graph: ResolutionGraph, pairs: list[Pair]) -> list[Pair]:
        w = self.ego_weight
        return [
            Pair(
                p.a,
                p.b,
                w * float(graph.vectors[p.a] @ graph.vectors[p.b])
                + (1 - w) * typed_neighbour_similarity(graph, p.a, p.b),
            )
            for p in pairs
        ]


def ego_matcher(config: DenoiseConfig) -> Matcher:
    """``KINDS["resolution_matcher"]["ego"]``."""
    return EgoMatcher()


def neighbour_matcher(config: DenoiseConfig) -> Matcher:
    """``KINDS["resolution_matcher"]["neighbour"]``."""
    return NeighbourMatcher()


def typed_neighbour_matcher(config: DenoiseConfig) -> Matcher:
    """``KINDS["resolution_matcher"]["typed-neighbour"]``."""
    return TypedNeighbourMatcher()


def ego_neighbour_matcher(config: DenoiseConfig) -> Matcher:
    """``KINDS["resolution_matcher"]["ego+neighbour"]``."""
    return EgoNeighbourMatcher(config.entry_settings("matchers", "ego+neighbour", EgoMixSettings).ego_weight)


def ego_typed_neighbour_matcher(config: DenoiseConfig) -> Matcher:
    """``KINDS["resolution_matcher"]["ego+typed-neighbour"]``."""
    own = config.entry_settings("matchers", "ego+typed-neighbour", EgoMixSettings)
    return EgoTypedNeighbourMatcher(own.ego_weight)
