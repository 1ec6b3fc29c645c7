"""Stage ``communities``: partition the graph into a hierarchy of communities when the graph (or the
``[communities]`` settings) changed since the last run; an unchanged re-run costs one count query.

Unchanged communities keep their ids and so their reports; the ``community-reports`` stage then only
writes reports for the new ones.
"""

from __future__ import annotations

from kgrag.communities.detect import detect_communities
from kgrag.core.stages import COMMUNITIES, progress_label
from kgrag.indexing.context import IndexContext


class CommunitiesStage:
    """Hierarchical communities of the stored graph (``communities.builder``)."""

    name = COMMUNITIES

    def __init__(self, *, force: bool = False) -> None:
        self.force = force

    def run(self, ctx: IndexContext) -> None:
        label = progress_label(self.name)
        ctx.progress.start(label, None)
        stats = detect_communities(ctx.store, ctx.config.communities, force=self.force)
        ctx.progress.finish(label)
        ctx.report.communities.update(
            communities=stats.communities,
            levels=len(stats.levels),
            new=stats.new,
            kept=stats.kept,
            dropped=stats.dropped,
        )
