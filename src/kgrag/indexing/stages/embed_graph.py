"""Stage ``embed-graph``: embed the entities whose text has no vector yet (after extraction or refresh).

:func:`kgrag.graph.build.vectors.ensure_graph_vectors` costs nothing when the graph did not change since
the last complete run for this model, so unchanged re-runs stay free. The model runs where the run's
``ctx.compute`` puts it; vectors are written here, one transaction per batch.
"""

from __future__ import annotations

from kgrag.core.stages import EMBED_GRAPH
from kgrag.graph.build.vectors import ensure_graph_vectors
from kgrag.indexing.context import IndexContext


class EmbedGraphStage:
    """Embeds new or re-summarised entities with the workspace's embedder."""

    name = EMBED_GRAPH

    def run(self, ctx: IndexContext) -> None:
        ctx.report.graph_texts_embedded += ensure_graph_vectors(
            ctx.store, ctx.embedder, progress=ctx.progress, embed=ctx.compute.embed
        )
