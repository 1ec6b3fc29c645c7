"""Many threads querying one workspace: the same results as one thread, and every lazy resource (the
embedding model, the LLM client, the dense and graph indexes) created exactly once."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from kgrag import Workspace
from kgrag.core.lazy import Lazy
from kgrag.graph import snapshot as snapshot_module
from kgrag.models import embeddings as embeddings_module
from kgrag.models import torch_threads
from kgrag.models.embeddings import FakeEmbedder, KeyedEmbedder
from kgrag.retrieval import QueryContext
from kgrag.retrieval.resources.caches import TextCache

QUESTIONS = ("Who leads the Platform team?", "What does Shale store for Kestrel?", "hotel cap travel policy")
PIPELINES = ("dense", "bm25", "hybrid", "graph-local")
SLOW = 0.05  # seconds each creation takes: wide enough that an unlocked check-then-set would race


class Counter:
    """Counts calls of the wrapped factory and makes each one slow."""

    def __init__(self, create: Callable[[], Any]) -> None:
        self.create = create
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, *args: Any) -> Any:
        with self._lock:
            self.calls += 1
        time.sleep(SLOW)
        return self.create(*args)


def _fingerprint(ws: Workspace, question: str, pipeline: str) -> tuple[Any, ...]:
    response = ws.query(question, pipeline, 4)
    items = tuple((i.kind, i.id, round(i.score, 9), i.text) for i in response.result.items)
    return items, response.answer.text, tuple(response.answer.citations)


def _counted_context(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> dict[str, Counter]:
    """Give ``ws`` a fresh query context whose every creation is counted."""
    counters = {
        "model": Counter(lambda: FakeEmbedder(64)),
        "llm": Counter(ws.components.llm),
        "dense": Counter(ws.store.vectors.chunk_matrix),
        "graph": Counter(snapshot_module.build_graph_index),
    }
    embedder = KeyedEmbedder(ws.components.embedding_model_id, counters["model"])
    monkeypatch.setattr(ws.store.vectors, "chunk_matrix", counters["dense"])
    monkeypatch.setattr(snapshot_module, "build_graph_index", counters["graph"])
    ws.components.query_context = QueryContext(
        ws.store, ws.config, model_id=ws.components.embedding_model_id, embedder=lambda: embedder, llm=counters["llm"]
    )
    return counters


def test_concurrent_queries_match_serial_ones(graph_ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs = [(q, p) for q in QUESTIONS for p in PIPELINES]
    serial = {job: _fingerprint(graph_ws, *job) for job in jobs}
    fresh = Workspace.open(graph_ws.path, embedding={"provider": "fake"}, graph={"extractor": "none"})
    try:
        counters = _counted_context(fresh, monkeypatch)
        with ThreadPoolExecutor(max_workers=16) as pool:
            futures = [(job, pool.submit(_fingerprint, fresh, *job)) for job in jobs * 4]
            concurrent = [(job, future.result()) for job, future in futures]
        assert all(result == serial[job] for job, result in concurrent)
        assert {name: c.calls for name, c in counters.items()} == {"model": 1, "llm": 1, "dense": 1, "graph": 1}
        assert len(fresh.components.query_context.get("query_vectors")) == len(QUESTIONS)
    finally:
        fresh.close()


def test_a_bm25_query_never_loads_the_embedding_model(graph_ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    with Workspace.open(graph_ws.path, embedding={"provider": "fake"}, graph={"extractor": "none"}) as ws:
        counters = _counted_context(ws, monkeypatch)
        assert ws.retrieve("Kestrel storage", "bm25", 3).items
        assert counters["model"].calls == 0 and counters["dense"].calls == 0 and counters["llm"].calls == 0


def test_lazy_creates_once_under_contention() -> None:
    counter = Counter(object)
    lazy: Lazy[object] = Lazy(counter)
    with ThreadPoolExecutor(max_workers=12) as pool:
        values = list(pool.map(lambda _: lazy.get(), range(48)))
    assert counter.calls == 1 and all(v is values[0] for v in values) and lazy.created


def test_query_vector_cache_is_bounded_and_locked() -> None:
    embedder = FakeEmbedder(16)
    cache: TextCache[np.ndarray] = TextCache(4)
    words = [f"word{i}" for i in range(10)] * 5
    with ThreadPoolExecutor(max_workers=8) as pool:
        vectors = list(pool.map(lambda w: cache.get(w, lambda t: embedder.embed([t])[0]), words))
    assert len(cache) == 4
    assert all(np.allclose(v, embedder.embed([w])[0]) for v, w in zip(vectors, words, strict=True))


class FakeTorch:
    """torch's thread setting as a plain value, recording what each call ran with."""

    def __init__(self, threads: int = 4) -> None:
        self.threads = threads
        self.sets: list[int] = []
        self.lock = threading.Lock()

    def get_num_threads(self) -> int:
        return self.threads

    def set_num_threads(self, n: int) -> None:
        with self.lock:
            self.threads = n
            self.sets.append(n)


def test_torch_thread_gate_never_mixes_counts_and_restores(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = FakeTorch(threads=4)
    monkeypatch.setitem(sys.modules, "torch", torch)
    gate = torch_threads.TorchThreadGate()
    running: dict[int, int] = {}
    overlap: list[int] = []
    bad: list[tuple[int | None, int]] = []
    lock = threading.Lock()

    def call(count: int | None) -> None:
        with gate.threads(count):
            with lock:
                running[torch.threads] = running.get(torch.threads, 0) + 1
                overlap.append(sum(running.values()))
                if len(running) > 1 or torch.threads != (count or 4):
                    bad.append((count, torch.threads))
            time.sleep(0.005)
            with lock:
                running[torch.threads] -= 1
                if not running[torch.threads]:
                    del running[torch.threads]

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(call, ([1] * 6 + [None] * 2 + [2]) * 6))
    assert not bad  # every call ran with its own count, never next to a call of another count
    assert max(overlap) > 1  # calls wanting the same count ran together
    assert torch.threads == 4  # torch's own count is back once no call runs


def test_sentence_transformer_threads_per_call_size(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = FakeTorch(threads=2)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(torch_threads, "TORCH_THREADS", torch_threads.TorchThreadGate())
    monkeypatch.setattr(embeddings_module, "TORCH_THREADS", torch_threads.TORCH_THREADS)
    seen: list[int] = []

    class Model:
        def encode(self, texts: list[str], **_: Any) -> np.ndarray:
            seen.append(torch.threads)
            return np.ones((len(texts), 3), dtype=np.float32)

    embedder = object.__new__(embeddings_module.SentenceTransformerEmbedder)
    embedder._model, embedder.batch_size = Model(), 32
    embedder.threads, embedder.small_call_threads, embedder.small_call_texts = None, 1, 1
    embedder.embed(["one query"])
    embedder.embed(["a", "batch", "of passages"])
    embedder.threads = 3
    embedder.embed(["a", "batch"])
    assert seen == [1, 2, 3] and torch.threads == 2
