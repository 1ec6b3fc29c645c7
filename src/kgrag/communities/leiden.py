"""The built-in community builders: recursive igraph Leiden (default), multi-resolution Leiden and
connected components.

igraph's Leiden draws from igraph's process-wide random generator. Reproducibility needs a seeded one,
so each run installs a fresh ``random.Random(seed)`` under a lock and restores the default after: the
lock keeps two threads from sharing a generator, and nothing stays changed once the run is over.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import igraph as ig
import numpy as np

from kgrag.communities.builder_settings import LeidenSettings, MultiResolutionSettings
from kgrag.communities.hierarchy import WEIGHT, Hierarchy, compact, top_down
from kgrag.config import CommunitiesConfig

_RNG_LOCK = threading.Lock()


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """igraph's generator seeded with ``seed`` for the block, the default ``random`` module after."""
    with _RNG_LOCK:
        ig.set_random_number_generator(random.Random(seed))
        try:
            yield
        finally:
            ig.set_random_number_generator(random)


def leiden(graph: ig.Graph, resolution: float, iterations: int) -> np.ndarray:
    """One modularity Leiden run (call inside :func:`seeded`); isolated vertices are their own community."""
    if graph.ecount() == 0:
        return np.arange(graph.vcount(), dtype=np.int64)
    weights = WEIGHT if WEIGHT in graph.es.attributes() else None
    clustering = graph.community_leiden(
        objective_function="modularity", weights=weights, resolution=resolution, n_iterations=iterations
    )
    return np.asarray(clustering.membership, dtype=np.int64)


def _split(graph: ig.Graph, current: np.ndarray, config: LeidenSettings) -> tuple[np.ndarray, bool]:
    """The next finer level: every community above ``max_cluster_size`` partitioned on its own subgraph,
    the others carried down unchanged. Returns the labels and whether anything split."""
    sizes = np.bincount(current)
    order = np.argsort(current, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    finer = np.empty_like(current)
    next_label, split = 0, False
    for label, size in enumerate(sizes):
        members = order[bounds[label] : bounds[label + 1]]
        if size > config.max_cluster_size:
            sub = leiden(graph.induced_subgraph(members.tolist()), config.resolution, config.iterations)
            if sub.max() > 0:
                finer[members] = next_label + compact(sub)
                next_label += int(sub.max()) + 1
                split = True
                continue
        finer[members] = next_label
        next_label += 1
    return finer, split


class LeidenBuilder:
    """Hierarchical Leiden as Microsoft GraphRAG and feldt-hellstrom-2026 §3.4.5 use it: Leiden on the
    whole weighted graph, then again inside every community larger than ``max_cluster_size``, until none
    is or ``max_levels`` is reached. Level 0 is the finest partition."""

    name = "leiden"

    def __init__(self, config: CommunitiesConfig) -> None:
        self.config = config.entry_settings("builders", self.name, LeidenSettings)

    def build(self, graph: ig.Graph) -> Hierarchy:
        with seeded(self.config.seed):
            levels = [leiden(graph, self.config.resolution, self.config.iterations)]
            while len(levels) < self.config.max_levels:
                finer, split = _split(graph, levels[-1], self.config)
                if not split:
                    break
                levels.append(finer)
        return top_down(levels)


class MultiResolutionBuilder:
    """One Leiden partition per entry of ``resolutions`` (triple-layer-graphrag: 0.5/1.0/2.0), finest
    first. Levels need not nest; a community's parent is the coarser community holding most of it."""

    name = "leiden-multires"

    def __init__(self, config: CommunitiesConfig) -> None:
        self.config = config.entry_settings("builders", self.name, MultiResolutionSettings)

    def build(self, graph: ig.Graph) -> Hierarchy:
        with seeded(self.config.seed):
            ordered = sorted(self.config.resolutions, reverse=True)
            levels = [leiden(graph, r, self.config.iterations) for r in ordered]
        return Hierarchy(tuple(compact(labels) for labels in levels))


class ComponentsBuilder:
    """Connected components as one level: no randomness, no tuning; a baseline and a fast fake."""

    name = "components"

    def __init__(self, config: CommunitiesConfig) -> None:
        self.config = config

    def build(self, graph: ig.Graph) -> Hierarchy:
        return Hierarchy((compact(np.asarray(graph.connected_components().membership, dtype=np.int64)),))
