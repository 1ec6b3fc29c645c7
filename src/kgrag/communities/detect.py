"""Detecting communities on the stored graph and installing the hierarchy, only when something changed.

The weighted entity graph (edge weight = the relation's aggregated weight) is partitioned by the
configured builder. A marker in the store's meta table holds the graph's sizes and the settings the
hierarchy was built with, so an unchanged re-run costs one count query, like graph vectors do.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from kgrag.communities.hierarchy import CommunityBuilder, config_signature, level_stats, to_records
from kgrag.config import CommunitiesConfig
from kgrag.core.community_records import LevelStats
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.graph.analysis.igraph_view import to_igraph
from kgrag.store.base import Store

META_KEY = "communities.built_for"


BuilderFactory = Callable[[CommunitiesConfig], CommunityBuilder]
COMMUNITY_BUILDERS: RegistryKind[BuilderFactory] = RegistryKind("community_builder")


def create_builder(config: CommunitiesConfig, registry: Registry[BuilderFactory] | None = None) -> CommunityBuilder:
    """The builder ``communities.builder`` names (built-ins and installed plug-ins)."""
    builder: CommunityBuilder = (registry or COMMUNITY_BUILDERS.new()).create(config.builder, config)
    return builder


def fingerprint(store: Store, config: CommunitiesConfig) -> str:
    counts = store.graph.counts()
    sizes = "|".join(str(counts[k]) for k in ("entities", "relations", "entity_mentions", "relation_mentions"))
    return f"{sizes}|{config_signature(config)}"


@dataclass
class DetectionStats:
    """What a detection run did: whether it ran, the levels, and how many communities are new or kept
    (kept ones keep their reports)."""

    ran: bool = False
    levels: list[LevelStats] = field(default_factory=list)
    communities: int = 0
    new: int = 0
    kept: int = 0
    dropped: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def detect_communities(
    store: Store, config: CommunitiesConfig, *, force: bool = False, builders: Registry[BuilderFactory] | None = None
) -> DetectionStats:
    """Partition the graph and store the hierarchy unless it is up to date (``force``: always)."""
    marker = fingerprint(store, config)
    if not force and store.meta.get(META_KEY) == marker:
        return DetectionStats(levels=store.communities.levels(), communities=store.communities.counts()["communities"])
    started = time.perf_counter()
    graph, ids = to_igraph(store, by_id=True)  # the partition must not depend on the order rows were written
    if ids:
        hierarchy = create_builder(config, builders).build(graph)
        records, levels = to_records(hierarchy, ids), level_stats(graph, hierarchy)
    else:
        records, levels = [], []
    before = {c.id for c in store.communities.communities()}
    after = {c.id for c in records}
    with store.transaction():
        store.communities.replace(records, levels)
        store.meta.set(META_KEY, marker)
    return DetectionStats(
        ran=True,
        levels=levels,
        communities=len(records),
        new=len(after - before),
        kept=len(after & before),
        dropped=len(before - after),
        seconds=round(time.perf_counter() - started, 3),
    )
