"""Reusable retrieval steps. A pipeline is a tuple of these; each reads and extends a QueryState.

Search steps put scored candidates into a named *stream*; fusion turns streams into the ranked
``items``; ``Hydrate`` fills chunk text and provenance only for what survives the cut, so search stays
cheap. Graph, community and reranking steps join later with the same shape.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from kgrag.core.context import ContextItem, TraceStep
from kgrag.core.records import ScoredId
from kgrag.retrieval.query_context import QueryContext


@dataclass
class QueryState:
    """Mutable state threaded through a pipeline run."""

    query: str
    k: int
    queries: list[str]
    streams: dict[str, list[ContextItem]] = field(default_factory=dict)
    items: list[ContextItem] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)
    hypothetical: list[str] = field(default_factory=list)
    """HyDE passages (searched by a ``DenseSearch`` with ``texts="hypothetical"``)."""
    keywords: dict[str, list[str]] = field(default_factory=dict)
    """LightRAG keywords by level (``low``: entities, ``high``: relations), when a step extracted them."""

    def record(self, step: str, params: dict[str, Any], n_out: int, started: float, note: str = "") -> None:
        self.trace.append(
            TraceStep(
                step=step, params=params, n_out=n_out, ms=round((time.perf_counter() - started) * 1000, 3), note=note
            )
        )


class Step(Protocol):
    """One stage of a retrieval pipeline."""

    @property
    def name(self) -> str: ...

    def run(self, state: QueryState, env: QueryContext) -> None: ...


def _merge_max(lists: Sequence[Sequence[tuple[str, float]]], stream: str) -> list[ContextItem]:
    """Union of hit lists (one per query), keeping each chunk's best score, best first."""
    best: dict[str, float] = {}
    for hits in lists:
        for chunk_id, score in hits:
            if chunk_id not in best or score > best[chunk_id]:
                best[chunk_id] = score
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    return [
        ContextItem(kind="chunk", id=cid, text="", score=s, chunk_ids=[cid], scores={stream: s}) for cid, s in ranked
    ]


def _search_all_queries(
    step: DenseSearch | BM25Search, state: QueryState, search: Callable[[list[str]], list[list[ScoredId]]]
) -> None:
    """Run one retriever for every query in the state and store the union as the step's stream."""
    started = time.perf_counter()
    texts = state.hypothetical if step.texts == "hypothetical" else state.queries
    hits = [[(h.id, h.score) for h in found] for found in search(texts)] if texts else []
    state.streams[step.stream] = _merge_max(hits, step.stream)
    state.record(step.name, {"pool": step.pool, "queries": len(texts)}, len(state.streams[step.stream]), started)


@dataclass(frozen=True)
class DenseSearch:
    """Cosine search of every query in the state (or, with ``texts="hypothetical"``, every HyDE passage)
    against the chunk vectors."""

    pool: int
    stream: str = "dense"
    name: str = "dense_search"
    texts: str = "queries"

    def run(self, state: QueryState, env: QueryContext) -> None:
        def search(texts: list[str]) -> list[list[ScoredId]]:
            vectors = np.stack([env.embed_query(text) for text in texts])
            return env.store.vectors.search_many(env.model_id, vectors, self.pool)  # one pass for all queries

        _search_all_queries(self, state, search)


@dataclass(frozen=True)
class BM25Search:
    """SQLite FTS5 BM25 search of every query in the state."""

    pool: int
    stream: str = "bm25"
    name: str = "bm25_search"
    texts: str = "queries"

    def run(self, state: QueryState, env: QueryContext) -> None:
        search = env.store.chunks.search_bm25
        _search_all_queries(self, state, lambda texts: [search(text, self.pool) for text in texts])


@dataclass(frozen=True)
class UseStream:
    """Make one stream the ranked result (single-retriever pipelines)."""

    stream: str
    name: str = "use_stream"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        state.items = list(state.streams.get(self.stream, []))
        state.record(self.name, {"stream": self.stream}, len(state.items), started)


@dataclass(frozen=True)
class FuseRRF:
    """Reciprocal rank fusion: score = Σ 1 / (k + rank) over the streams an item appears in."""

    streams: tuple[str, ...]
    k: int = 60
    name: str = "rrf_fuse"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        fused: dict[str, ContextItem] = {}
        for stream in self.streams:
            for rank, item in enumerate(state.streams.get(stream, []), start=1):
                target = fused.setdefault(
                    item.id,
                    ContextItem(kind=item.kind, id=item.id, text=item.text, score=0.0, chunk_ids=list(item.chunk_ids)),
                )
                target.score += 1.0 / (self.k + rank)
                target.scores.update(item.scores)
        state.items = sorted(fused.values(), key=lambda it: -it.score)
        for item in state.items:
            item.scores["rrf"] = item.score
        state.record(self.name, {"streams": list(self.streams), "k": self.k}, len(state.items), started)


@dataclass(frozen=True)
class TakeTop:
    """Cut the ranked items to the query's k (or to ``limit``: a reranker's pool)."""

    name: str = "take_top"
    limit: int | None = None

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        keep = self.limit if self.limit is not None else state.k
        state.items = state.items[:keep]
        state.record(self.name, {"k": keep}, len(state.items), started)


@dataclass(frozen=True)
class Hydrate:
    """Fill in text, document and span of chunk items from the store; items that already have both (an
    earlier ``Hydrate`` of the same run, before a reranker) are kept as they are."""

    name: str = "hydrate"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        wanted = [item.id for item in state.items if item.kind == "chunk" and not _hydrated(item)]
        chunks = {c.id: c for c in env.store.chunks.get_many(wanted)}
        kept: list[ContextItem] = []
        for item in state.items:
            if item.kind == "chunk" and _hydrated(item):
                kept.append(item)
                continue
            chunk = chunks.get(item.id) if item.kind == "chunk" else None
            if item.kind == "chunk" and chunk is None:
                continue  # deleted between search and hydration
            if chunk is not None:
                item.text, item.doc_id = chunk.text, chunk.doc_id
                item.span = (chunk.char_start, chunk.char_end)
                item.metadata.setdefault("ord", chunk.ord)
                item.metadata.setdefault("n_tokens", chunk.n_tokens)
            kept.append(item)
        state.items = kept
        state.record(self.name, {}, len(kept), started)


def _hydrated(item: ContextItem) -> bool:
    return item.doc_id is not None and bool(item.text)
