"""``ws.communities``: build or rebuild the community hierarchy and its reports, and read them back.

Building runs the ``communities`` and ``community-reports`` indexing stages over the graph as it is, so
``kgrag graph communities`` and ``indexing.pipeline = graphrag`` do exactly the same work, with the same
incrementality (only communities whose membership changed get new reports) and the same ledger stage.
igraph and matplotlib load inside the methods that need them, so opening a workspace for a query does
not pay for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kgrag.communities.overview import CommunityOverview, community_overview
from kgrag.core.community_records import CommunityRecord, CommunityReport, LevelStats
from kgrag.core.errors import KgragError
from kgrag.core.progress import Progress, SilentProgress
from kgrag.indexing import IndexContext, IndexReport
from kgrag.indexing.runner import run_stages
from kgrag.workspace.components import Components
from kgrag.workspace.index_lock import indexing_lock

SIZES_PLOT = "community_sizes.png"


@dataclass
class BuildResult:
    """What a build did (stage counts and timings, LLM usage lines) and the hierarchy after it."""

    report: IndexReport
    overview: CommunityOverview
    llm_lines: list[str] = field(default_factory=list)


class CommunitiesAPI:
    """Communities of this workspace's graph."""

    def __init__(self, parts: Components) -> None:
        self._parts = parts

    def build(self, *, rebuild: bool = False, progress: Progress | None = None) -> BuildResult:
        """Detect communities if the graph changed (``rebuild``: always) and write missing reports, under
        the workspace's writer lock (a running ``kgrag index`` finishes first)."""
        progress = progress or SilentProgress()
        with indexing_lock(self._parts.path, self._parts.store, progress):
            report = self._build(rebuild, progress)
        parts = self._parts
        client = parts.llm_created()
        lines = (
            client.ledger.summary(client.run_id, prices=parts.prices()).lines() if client and client.available else []
        )
        return BuildResult(report, self.overview(), lines)

    def _build(self, rebuild: bool, progress: Progress) -> IndexReport:
        parts = self._parts
        llm = parts.llm_for_indexing()  # first: it fits the config to the server's window, sizes prompts
        plan, _ = parts.chunk_plan()
        ctx = IndexContext(
            store=parts.store,
            config=parts.config,
            plan=plan,
            embedder=parts.embedder(),
            progress=progress,
            llm=llm,
            registries=parts.registries,
        )
        from kgrag.indexing.stages.communities import CommunitiesStage  # igraph loads only when building
        from kgrag.indexing.stages.community_reports import CommunityReportsStage

        return run_stages(ctx, [CommunitiesStage(force=rebuild), CommunityReportsStage()])

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
