"""What ``kgrag graph communities`` shows: per level the count, modularity and size distribution, and
how the reports were made (the plot is :mod:`kgrag.communities.plots`)."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field

from kgrag.store.base import Store


@dataclass(frozen=True)
class LevelOverview:
    """One level: communities, modularity, sizes (min/median/max/mean) and how many are below the
    report size floor."""

    level: int
    communities: int
    modularity: float
    min_size: int
    median_size: float
    max_size: int
    mean_size: float
    below_min: int


@dataclass
class CommunityOverview:
    levels: list[LevelOverview] = field(default_factory=list)
    sizes: dict[int, list[int]] = field(default_factory=dict)
    reports: dict[str, int] = field(default_factory=dict)  # by method
    report_count: int = 0
    largest: list[tuple[str, int, int, str]] = field(default_factory=list)  # id, level, size, report title
    entities: int = 0  # in the graph: tells "no communities built yet" from "nothing to build them from"

    def to_dict(self) -> dict[str, object]:
        largest = [{"id": i, "level": lv, "size": n, "title": t} for i, lv, n, t in self.largest]
        levels = [asdict(x) for x in self.levels]
        return {"levels": levels, "reports": self.reports, "report_count": self.report_count, "largest": largest}


def community_overview(store: Store, min_size: int, top: int = 10) -> CommunityOverview:
    """Levels, sizes and report methods, plus the ``top`` largest reported communities of the finest
    level that has them (their ids are what ``kgrag graph report`` takes)."""
    sizes: dict[int, list[int]] = {}
    communities = store.communities.communities()
    for community in communities:
        sizes.setdefault(community.level, []).append(community.size)
    modularity = {s.level: s.modularity for s in store.communities.levels()}
    levels = [
        LevelOverview(
            level,
            len(values),
            modularity.get(level, 0.0),
            min(values),
            float(statistics.median(values)),
            max(values),
            round(statistics.fmean(values), 2),
            sum(v < min_size for v in values),
        )
        for level, values in sorted(sizes.items())
    ]
    reports = {r.community_id: r for r in store.communities.reports()}
    methods = Counter(r.method for r in reports.values())
    ranked = sorted(
        (c for c in communities if c.id in reports and c.children != 1), key=lambda c: (-c.size, c.level, c.id)
    )
    largest = [(c.id, c.level, c.size, reports[c.id].title) for c in ranked[:top]]
    entities = store.graph.counts()["entities"]
    return CommunityOverview(levels, sizes, dict(sorted(methods.items())), sum(methods.values()), largest, entities)
