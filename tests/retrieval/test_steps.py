"""Retrieval steps: a fusion that materialises only what the next cut keeps is the full fusion cut, and
a run searches each BM25 query once (the question's feedback search is its BM25 step's)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from types import SimpleNamespace

import pytest

from kgrag import Workspace
from kgrag.core.context import ContextItem
from kgrag.core.records import ScoredId
from kgrag.retrieval.steps import FuseRRF, QueryState, bm25_hits


def _state(seed: int) -> QueryState:
    """Three streams over 40 ids with overlaps, ties in rank sums and extra per-item scores."""
    rng = random.Random(seed)
    state = QueryState(query="q", k=5, queries=["q"])
    for stream in ("dense", "bm25", "hyde"):
        ids = rng.sample([f"c{i}" for i in range(40)], 25)
        state.streams[stream] = [
            ContextItem("chunk", cid, "", 1.0 / (1 + n), [cid], scores={stream: 1.0 / (1 + n)})
            for n, cid in enumerate(ids)
        ]
    return state


def _view(items: Sequence[ContextItem]) -> list[tuple[object, ...]]:
    return [(i.kind, i.id, i.text, i.score, i.chunk_ids, list(i.scores.items())) for i in items]


@pytest.mark.parametrize("keep", [3, 25, 100, "k"])
def test_fusing_only_what_is_kept_is_the_full_fusion_cut(keep: int | str) -> None:
    for seed in range(5):
        full, cut = _state(seed), _state(seed)
        FuseRRF(("dense", "bm25", "hyde")).run(full, env=None)  # type: ignore[arg-type]
        FuseRRF(("dense", "bm25", "hyde"), keep=keep).run(cut, env=None)  # type: ignore[arg-type]
        n = full.k if keep == "k" else keep
        assert _view(cut.items) == _view(full.items[:n])
        assert cut.trace[0].n_out == full.trace[0].n_out == len(full.items)  # the trace counts every candidate


class CountingChunks:
    """A chunk repository's BM25 batch, recording every batch it is asked."""

    def __init__(self) -> None:
        self.batches: list[tuple[list[str], int]] = []

    def search_bm25_many(self, queries: Sequence[str], limit: int) -> list[list[ScoredId]]:
        self.batches.append((list(queries), limit))
        return [[ScoredId(f"{query}-{n}", float(limit - n)) for n in range(limit)] for query in queries]


def test_a_run_searches_each_text_once_as_deep_as_asked() -> None:
    chunks = CountingChunks()
    env = SimpleNamespace(store=SimpleNamespace(chunks=chunks))
    state = QueryState(query="q", k=5, queries=["q"])
    first = bm25_hits(state, env, ["q"], 50)  # type: ignore[arg-type]
    again = bm25_hits(state, env, ["a", "q", "b", "a"], 3)  # type: ignore[arg-type]
    assert again[1] == first[0][:3] and again[0] == again[3] and len(again[2]) == 3
    deeper = bm25_hits(state, env, ["a"], 10)  # type: ignore[arg-type]
    assert len(deeper[0]) == 10
    assert chunks.batches == [(["q"], 50), (["a", "b"], 3), (["a"], 10)]


def test_qe_searches_the_question_once(sample_ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """The LLM-free expansion's feedback search is the pool-deep search the BM25 step reuses."""
    chunks = sample_ws.store.chunks
    asked: list[str] = []
    search = chunks.search_bm25_many

    def spy(queries: Sequence[str], limit: int) -> list[list[ScoredId]]:
        asked.extend(queries)
        return search(queries, limit)

    monkeypatch.setattr(chunks, "search_bm25_many", spy)
    question = "Who leads the Platform team?"
    result = sample_ws.retrieve(question, "qe")
    assert asked.count(question) == 1 and len(result.queries) > 1
    assert sorted(asked) == sorted(result.queries)
