"""Stage ``communities``: partition the graph into a hierarchy of communities when the graph (or the
``[communities]`` settings) changed since the last run; an unchanged re-run costs one count query.

Unchanged communities keep their ids and so their reports; the ``community-reports`` stage then only
writes reports for the new ones. While the graph is incomplete (chunks whose extraction failed, or
descriptions whose summary fell back, both retried by the next run), detection waits: a hierarchy of a
partial graph would be replaced next run, and its reports paid for twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgrag.communities.detect import COMMUNITY_BUILDERS, detect_communities
from kgrag.core.stages import COMMUNITIES, progress_label
from kgrag.indexing.context import IndexContext

WAITING = "communities wait for a complete graph"  # the report's fallbacks key; reports wait with them


@dataclass
class CommunitiesReport:
    """What the ``communities`` stage did: communities and levels after it, and how many were new, kept
    (same members as before) and dropped."""

    communities: int = 0
    levels: int = 0
    new: int = 0
    kept: int = 0
    dropped: int = 0


class CommunitiesStage:
    """Hierarchical communities of the stored graph (``communities.builder``)."""

    name = COMMUNITIES
    report_model = CommunitiesReport

    def __init__(self, *, force: bool = False) -> None:
        self.force = force

    def run(self, ctx: IndexContext) -> None:
        if not self.force and graph_incomplete(ctx):
            ctx.report.fallbacks[WAITING] = 1
            ctx.progress.note(f"{WAITING}: the next run detects them")
            return
        label = progress_label(self.name)
        ctx.progress.start(label, None)
        stats = detect_communities(
            ctx.store, ctx.config.communities, force=self.force, builders=ctx.registries.get(COMMUNITY_BUILDERS)
        )
        ctx.progress.finish(label)
        own = ctx.report.stage(self.name, CommunitiesReport)
        own.communities, own.levels = stats.communities, len(stats.levels)
        own.new, own.kept, own.dropped = stats.new, stats.kept, stats.dropped


def graph_incomplete(ctx: IndexContext) -> bool:
    """Whether this run left extraction failures or fallback summaries for the next one."""
    graph = ctx.store.graph
    return bool(ctx.report.chunks_extraction_failed or graph.stale_entity_ids() or graph.stale_relation_ids())
