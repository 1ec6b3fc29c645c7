"""Stage ``refresh``: the graph follows its sources without extracting anything new.

Re-chunking or removing a document deletes its chunks, and with them their mentions; this stage drops
entities and relations left without provenance and re-summarises those that lost some, so an existing
graph never cites chunks that are gone. ``extract`` does the same first; pipelines without extraction
(``no-graph``) run this instead.
"""

from __future__ import annotations

from kgrag.core.stages import REFRESH
from kgrag.graph.build.lifecycle import refresh_graph
from kgrag.graph.build.vectors import mark_graph_vectors_stale
from kgrag.indexing.context import IndexContext


class RefreshStage:
    """Drops orphans and rebuilds stale aggregates; marks graph vectors stale when something changed."""

    name = REFRESH

    def run(self, ctx: IndexContext) -> None:
        refresh_only(ctx)


def refresh_only(ctx: IndexContext) -> None:
    """The refresh itself, shared with ``extract`` when the workspace has no extractor."""
    if refresh_graph(ctx.store, ctx.description_summarizer(), ctx.plan.counter).changed:
        mark_graph_vectors_stale(ctx.store)
