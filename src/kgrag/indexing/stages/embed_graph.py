"""Stage ``embed-graph``: embed the entities whose text has no vector yet (after extraction or refresh).

:func:`kgrag.graph.build.vectors.ensure_graph_vectors` costs nothing when the graph did not change since
the last complete run for this model, so unchanged re-runs stay free. The model runs where the run's
``ctx.compute`` puts it; vectors are written here, one transaction per batch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from kgrag.core.stages import EMBED_GRAPH, timing_key
from kgrag.graph.build.vectors import ensure_graph_vectors
from kgrag.indexing.compute import timed_blocks
from kgrag.indexing.context import IndexContext
from kgrag.models.embeddings import Embedder

MODEL_TIME = timing_key(EMBED_GRAPH, "model")


@dataclass
class EmbedGraphReport:
    """The ``embed-graph`` stage's count: entity and relation texts given a vector this run."""

    graph_texts_embedded: int = 0


class EmbedGraphStage:
    """Embeds new or re-summarised entities with the workspace's embedder."""

    name = EMBED_GRAPH
    report_model = EmbedGraphReport

    def run(self, ctx: IndexContext) -> None:
        def embed(embedder: Embedder, texts: Sequence[str], batch_size: int) -> Iterator[np.ndarray]:
            """The engine's blocks, their wait reported as this stage's model time (as ``embed`` does), so
            the scale benchmark can tell model from framework time in the stage that dominates NLP builds."""
            return timed_blocks(ctx.compute.embed(embedder, texts, batch_size), ctx.report, MODEL_TIME)

        ctx.report.stage(self.name, EmbedGraphReport).graph_texts_embedded += ensure_graph_vectors(
            ctx.store, ctx.embedder, progress=ctx.progress, embed=embed
        )
