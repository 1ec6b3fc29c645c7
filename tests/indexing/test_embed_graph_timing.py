"""The ``embed-graph`` stage reports its model time apart (``embed-graph.model``), as ``embed`` does, so
the scale benchmark can separate model from framework time in the stage that dominates NLP builds."""

from __future__ import annotations

import numpy as np

from kgrag.indexing.report import IndexReport
from kgrag.indexing.stages.embed_graph import MODEL_TIME, TimedEmbedder
from kgrag.models.embeddings import FakeEmbedder


def test_timed_embedder_delegates_and_accumulates_model_time() -> None:
    inner, report = FakeEmbedder(dimension=16), IndexReport()
    timed = TimedEmbedder(inner, report)
    assert (timed.name, timed.dimension, timed.window_tokens) == (inner.name, 16, inner.window_tokens)
    vectors = timed.embed(["alpha beta", "gamma"])
    assert np.array_equal(vectors, inner.embed(["alpha beta", "gamma"]))
    first = report.seconds[MODEL_TIME]
    timed.embed(["delta"])
    assert MODEL_TIME == "embed-graph.model" and report.seconds[MODEL_TIME] >= first >= 0.0
