"""Stage ``embed-graph``: embed the entities whose text has no vector yet (after extraction or refresh).

:func:`kgrag.graph.build.vectors.ensure_graph_vectors` costs nothing when the graph did not change since
the last complete run for this model, so unchanged re-runs stay free. The model runs where the run's
``ctx.compute`` puts it; vectors are written here, one transaction per batch.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from kgrag.core.stages import EMBED_GRAPH, timing_key
from kgrag.graph.build.vectors import ensure_graph_vectors
from kgrag.indexing.context import IndexContext
from kgrag.indexing.report import IndexReport
from kgrag.models.embeddings import Embedder

MODEL_TIME = timing_key(EMBED_GRAPH, "model")


class TimedEmbedder:
    """An embedder that adds the seconds spent in ``embed`` to the report under ``embed-graph.model``,
    so the scale benchmark can tell model time (this stage dominates NLP builds) from framework time."""

    def __init__(self, inner: Embedder, report: IndexReport) -> None:
        self._inner, self._report = inner, report

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    @property
    def window_tokens(self) -> int | None:
        return self._inner.window_tokens

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self._report.add_time(MODEL_TIME, time.perf_counter() - started)


class EmbedGraphStage:
    """Embeds new or re-summarised entities with the workspace's embedder."""

    name = EMBED_GRAPH

    def run(self, ctx: IndexContext) -> None:
        embedder = TimedEmbedder(ctx.embedder, ctx.report)  # model time only where the model runs here
        ctx.report.graph_texts_embedded += ensure_graph_vectors(
            ctx.store, embedder, progress=ctx.progress, embed=ctx.compute.embed
        )
