"""What ``ws.communities`` reads: the community hierarchy of a workspace's graph and its reports (the
build runs indexing stages: :mod:`kgrag.indexing.communities_build`). matplotlib loads only when plotting."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kgrag.communities.overview import CommunityOverview, community_overview
from kgrag.core.community_records import CommunityRecord, CommunityReport, LevelStats
from kgrag.core.errors import KgragError

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.store.base import Store

SIZES_PLOT = "community_sizes.png"


class CommunityParts(Protocol):
    """The workspace's store and config (read on every use)."""

    @property
    def config(self) -> KgragConfig: ...

    @property
    def store(self) -> Store: ...


class CommunitiesService:
    """Communities of a workspace's graph, as stored."""

    def __init__(self, parts: CommunityParts) -> None:
        self._parts = parts

    def overview(self) -> CommunityOverview:
        """Per level: count, modularity, sizes; reports by method."""
        return community_overview(self._parts.store, self._parts.config.communities.min_community_size)

    def levels(self) -> list[LevelStats]:
        return self._parts.store.communities.levels()

    def modularity(self) -> dict[int, float]:
        return {s.level: s.modularity for s in self.levels()}

    def sizes(self, level: int | None = None) -> dict[int, list[int]]:
        sizes = self.overview().sizes
        return sizes if level is None else {level: sizes.get(level, [])}

    def communities(self, level: int | None = None) -> list[CommunityRecord]:
        return self._parts.store.communities.communities(level)

    def get(self, community_id: str) -> CommunityRecord:
        found = self._parts.store.communities.get(community_id)
        if found is None:
            raise KgragError(f"no community {community_id!r}; `kgrag graph communities` lists them")
        return found

    def resolve(self, ref: str) -> str:
        """A community id from an id, or from a rank ``N`` in :meth:`overview`'s largest communities (what
        ``kgrag graph communities`` lists), so ``kgrag graph report 1`` shows the largest one."""
        if not ref.isdigit():
            return ref
        largest = self.overview().largest
        rank = int(ref)
        if not 1 <= rank <= len(largest):
            raise KgragError(f"no community ranked {rank}: `kgrag graph communities` lists {len(largest)}")
        return largest[rank - 1][0]

    def report(self, ref: str) -> CommunityReport:
        """The report of a community (id, or rank among the largest); a community without one (below the
        size floor) is a clear error."""
        community_id = self.resolve(ref)
        community = self.get(community_id)
        found = self._parts.store.communities.report(community_id)
        if found is None:
            raise KgragError(
                f"community {community_id!r} ({community.size} entities) has no report: communities smaller than "
                f"communities.min_community_size = {self._parts.config.communities.min_community_size} get none, "
                "and reports are written by `kgrag graph communities`"
            )
        return found

    def reports(self, level: int | None = None, limit: int = 50) -> list[CommunityReport]:
        """Reports of one level (or all), most important first (rating, then community size)."""
        communities = {c.id: c for c in self._parts.store.communities.communities(level)}
        found = self._parts.store.communities.reports(list(communities))
        found.sort(key=lambda r: (-r.rating, -communities[r.community_id].size, r.community_id))
        return found[:limit]

    def entity_names(self, entity_ids: list[str]) -> dict[str, str]:
        """Display names of entities (for showing a report's citations)."""
        return {e.id: e.name for e in self._parts.store.graph.entities(entity_ids)}

    def plot(self, directory: Path) -> Path:
        """PNG of the size distribution per level in ``directory``."""
        from kgrag.communities.plots import plot_sizes  # matplotlib loads only when plotting

        return plot_sizes(self.overview(), Path(directory) / SIZES_PLOT)
