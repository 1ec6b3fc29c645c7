"""The ``graspologic`` community builder: graspologic-native's hierarchical Leiden (the Rust
implementation Microsoft GraphRAG uses), an optional package (``pip install graspologic-native``).

Its clusters come coarse first (its level 0 is the whole-graph partition); communities that were not
split again are carried down a level, and the levels are reversed so level 0 is the finest, as for the
``leiden`` builder. Vertices without edges are not in its input and become their own communities.
"""

from __future__ import annotations

import igraph as ig
import numpy as np

from kgrag.communities.builder_settings import LeidenSettings
from kgrag.communities.hierarchy import WEIGHT, Hierarchy, top_down
from kgrag.config import CommunitiesConfig
from kgrag.core.errors import ConfigError


class GraspologicBuilder:
    """Hierarchical Leiden by graspologic-native, seeded with ``seed`` of ``[communities.builders.graspologic]``."""

    name = "graspologic"

    def __init__(self, config: CommunitiesConfig) -> None:
        self.config = config.entry_settings("builders", self.name, LeidenSettings)

    def build(self, graph: ig.Graph) -> Hierarchy:
        try:
            import graspologic_native as gn  # optional dependency, named in the error below
        except ImportError as exc:
            raise ConfigError(
                "communities.builder = graspologic needs the graspologic-native package "
                "(pip install graspologic-native), or use the built-in `leiden`"
            ) from exc
        n = graph.vcount()
        if graph.ecount() == 0:
            return top_down([np.arange(n, dtype=np.int64)])
        weights = graph.es[WEIGHT] if WEIGHT in graph.es.attributes() else [1.0] * graph.ecount()
        edges = [(str(e.source), str(e.target), float(w)) for e, w in zip(graph.es, weights, strict=True)]
        clusters = gn.hierarchical_leiden(
            edges,
            resolution=self.config.resolution,
            max_cluster_size=self.config.max_cluster_size,
            seed=self.config.seed,
            iterations=max(1, self.config.iterations),
        )
        depth = min(self.config.max_levels, 1 + max(c.level for c in clusters))
        labels = np.full((depth, n), -1, dtype=np.int64)
        for c in clusters:
            if c.level < depth:
                labels[c.level, int(c.node)] = c.cluster
        lonely = labels[0] < 0
        labels[0, lonely] = labels[0].max() + 1 + np.arange(int(lonely.sum()))
        for level in range(1, depth):
            missing = labels[level] < 0
            labels[level, missing] = labels[level - 1, missing]
        return top_down(list(labels))
