"""The ``embed-graph`` stage reports its model time apart (``embed-graph.model``), as ``embed`` does, so
the scale benchmark can separate model from framework time in the stage that dominates NLP builds. Both
time the engine's vector blocks (:func:`kgrag.indexing.compute.timed_blocks`), so the figure holds for
any engine, not only when the model runs in this process."""

from __future__ import annotations

import numpy as np

from kgrag.indexing.compute import LocalCompute, timed_blocks
from kgrag.indexing.report import IndexReport
from kgrag.indexing.stages.embed_graph import MODEL_TIME
from kgrag.models.embeddings import FakeEmbedder


def test_timed_blocks_delegate_and_accumulate_model_time() -> None:
    inner, report = FakeEmbedder(dimension=16), IndexReport()
    blocks = timed_blocks(LocalCompute().embed(inner, ["alpha beta", "gamma"], 8), report, MODEL_TIME)
    vectors = np.vstack(list(blocks))
    assert vectors.shape == (2, 16)
    assert np.array_equal(vectors, inner.embed(["alpha beta", "gamma"]))
    first = report.seconds[MODEL_TIME]
    list(timed_blocks(LocalCompute().embed(inner, ["delta"], 8), report, MODEL_TIME))
    assert MODEL_TIME == "embed-graph.model" and report.seconds[MODEL_TIME] >= first >= 0.0
