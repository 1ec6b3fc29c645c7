"""Reusable retrieval steps. A pipeline is a tuple of these; each reads and extends a QueryState.

Search steps put scored candidates into a named *stream*; fusion turns streams into the ranked
``items``; ``Hydrate`` fills chunk text and provenance only for what survives the cut, so search stays
cheap. Graph, community and reranking steps join later with the same shape.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np
from pydantic import JsonValue

from kgrag.core.context import ContextItem, IntermediateAnswers, RouteDecision, TraceStep
from kgrag.core.records import ScoredId
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps.sentence_search import blend_sentence_scores


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
    pipeline: str = ""
    """The pipeline running (its ``[retrieval.pipelines.<name>]`` settings apply to steps that read them)."""
    lexical_hits: dict[str, tuple[int, list[ScoredId]]] = field(default_factory=dict)
    """BM25 hits this run already searched, by query text, with the limit searched (:func:`bm25_hits`)."""
    route: RouteDecision | None = None
    """Where a routing step sent the question (:class:`~kgrag.core.context.RouteDecision`)."""
    context_tokens: int | None = None
    """What the context budget spent on the items (set by ``FitBudget``)."""
    intermediate: IntermediateAnswers | None = None
    """Answers a search wrote on the way, for its answer step (set by ``DriftSearch``)."""

    def record(self, step: str, params: dict[str, JsonValue], n_out: int, started: float, note: str = "") -> None:
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


def bm25_hits(state: QueryState, env: QueryContext, texts: Sequence[str], limit: int) -> list[list[ScoredId]]:
    """The top ``limit`` BM25 hits of each text, searched once per run: texts this run searched at least
    as deep are cut from that search (a search's first hits are the shallower search, ties by insertion
    order on every backend), the rest go to the store in one batch. qe and combined search the question
    for pseudo-relevance feedback and again in their BM25 step; this way it is one search."""
    memo = state.lexical_hits
    missing = [text for text in dict.fromkeys(texts) if text not in memo or memo[text][0] < limit]
    if missing:
        for text, hits in zip(missing, env.store.chunks.search_bm25_many(missing, limit), strict=True):
            memo[text] = (limit, hits)
    return [memo[text][1][:limit] for text in texts]


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
    state.streams[step.stream] = _merge_max(search(texts) if texts else [], step.stream)
    state.record(step.name, {"pool": step.pool, "queries": len(texts)}, len(state.streams[step.stream]), started)


@dataclass(frozen=True)
class DenseSearch:
    """Cosine search of every query in the state (or, with ``texts="hypothetical"``, every HyDE passage)
    against the chunk vectors; with sentence vectors stored, blended with each chunk's best sentences
    (:mod:`kgrag.retrieval.steps.sentence_search`)."""

    pool: int
    stream: str = "dense"
    name: str = "dense_search"
    texts: str = "queries"

    def run(self, state: QueryState, env: QueryContext) -> None:
        def search(texts: list[str]) -> list[list[ScoredId]]:
            vectors = np.stack([env.embed_query(text) for text in texts])
            hits = env.store.vectors.search_many(env.model_id, vectors, self.pool)  # one pass for all queries
            # with sentence vectors, each chunk is also scored by its best sentences (whole chunks are read)
            share = env.config.retrieval.dense_sentence_share_for(state.pipeline)
            return blend_sentence_scores(hits, vectors, state.query, env, self.pool, share)

        _search_all_queries(self, state, search)


@dataclass(frozen=True)
class BM25Search:
    """BM25 search of every query in the state (one batch: :func:`bm25_hits`)."""

    pool: int
    stream: str = "bm25"
    name: str = "bm25_search"
    texts: str = "queries"

    def run(self, state: QueryState, env: QueryContext) -> None:
        _search_all_queries(self, state, lambda texts: bm25_hits(state, env, texts, self.pool))


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
    """Reciprocal rank fusion: score = Σ 1 / (k + rank) over the streams an item appears in.

    ``keep`` is the cut the recipe makes right after (``TakeTop``): an int, ``"k"`` for the query's k,
    or None for no cut. Only the items kept become fused :class:`ContextItem` s: combined fuses ~250
    candidates to keep 50, qe ~150 to keep k, and every item is four Python objects that the garbage
    collector would otherwise count. The order, scores and trace are those of fusing everything."""

    streams: tuple[str, ...]
    k: int = 60
    name: str = "rrf_fuse"
    keep: int | Literal["k"] | None = None

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        scores: dict[str, float] = {}
        seen: dict[str, list[ContextItem]] = {}
        for stream in self.streams:
            for rank, item in enumerate(state.streams.get(stream, []), start=1):
                scores[item.id] = scores.get(item.id, 0.0) + 1.0 / (self.k + rank)
                seen.setdefault(item.id, []).append(item)
        ranked = sorted(scores, key=lambda item_id: -scores[item_id])  # ties keep the order first seen
        keep = state.k if self.keep == "k" else self.keep
        state.items = [_fused(seen[item_id], scores[item_id]) for item_id in ranked[:keep]]
        state.record(self.name, {"streams": list(self.streams), "k": self.k}, len(ranked), started)


def _fused(items: list[ContextItem], score: float) -> ContextItem:
    """One fused item from its stream items (first seen first): their scores, then ``rrf``."""
    first = items[0]
    fused = ContextItem(kind=first.kind, id=first.id, text=first.text, score=score, chunk_ids=list(first.chunk_ids))
    for item in items:
        fused.scores.update(item.scores)
    fused.scores["rrf"] = score
    return fused


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
