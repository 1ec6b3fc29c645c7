"""Building the community hierarchy and its reports on demand (``ws.communities.build``, ``kgrag graph
communities``): the ``communities`` and ``community-reports`` indexing stages over the graph as it is, so
this and ``indexing.pipeline = graphrag`` do exactly the same work, with the same incrementality (only
communities whose membership changed get new reports) and the same ledger stage."""

from __future__ import annotations

from dataclasses import dataclass, field

from kgrag.communities.overview import CommunityOverview, community_overview
from kgrag.core.progress import Progress, SilentProgress
from kgrag.indexing.context import IndexContext
from kgrag.indexing.parts import IndexParts
from kgrag.indexing.report import IndexReport
from kgrag.indexing.runner import run_stages
from kgrag.store.index_lock import indexing_lock


@dataclass
class BuildResult:
    """What a build did (stage counts and timings, LLM usage lines) and the hierarchy after it."""

    report: IndexReport
    overview: CommunityOverview
    llm_lines: list[str] = field(default_factory=list)


def build_communities(parts: IndexParts, *, rebuild: bool = False, progress: Progress | None = None) -> BuildResult:
    """Detect communities if the graph changed (``rebuild``: always) and write missing reports, under
    the workspace's writer lock (a running ``kgrag index`` finishes first)."""
    progress = progress or SilentProgress()
    with indexing_lock(parts.path, parts.store, progress):
        report = _run(parts, rebuild, progress)
    client = parts.llm_created()
    lines = client.ledger.summary(client.run_id, prices=parts.prices()).lines() if client and client.available else []
    overview = community_overview(parts.store, parts.config.communities.min_community_size)
    return BuildResult(report, overview, lines)


def _run(parts: IndexParts, rebuild: bool, progress: Progress) -> IndexReport:
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
