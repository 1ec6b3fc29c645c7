"""One context budget per pipeline, spent on what answers the question.

Every pipeline ends with :class:`FitBudget`, so ``retrieval.context_tokens`` (or a pipeline's own
``context_tokens``) bounds what it hands to the generator and pipelines are compared at equal context.

Chunk-only results keep the pipeline's order (its ranking *is* its judgement) and are cut where the
budget ends. Mixed results (passages plus entity, relation and path items) are ranked in one list by
their value to the query instead of in fixed blocks (the candidates are the pipeline's first k passages,
so its own ranking still decides which passages compete, and every fact): the cosine similarity of each
item's stored vector to the query (entities and relations are embedded by the ``embed-graph`` stage,
chunks by ``embed``; one store lookup per query), with the pipeline's own rank as the tie-break and as
the value where no vector exists. When the pipeline reranked its passages, they keep the reranker's
order among themselves (the passage values are handed out again in that order). A graph fact is worth
``fact_weight`` of a passage with the same similarity (a description restates what a passage says,
with less context), and a fact whose source passages are all already in the context is skipped: its
evidence is there. Passages stay capped at k, so
"recall@k" keeps meaning k passages. Items are added whole; a passage larger than the whole budget is
still kept when it comes first, since an empty context answers nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, partial

import numpy as np

from kgrag.core.context import ContextItem
from kgrag.documents import content_hash
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.stored import VECTOR_COUNT
from kgrag.retrieval.resources.text import TOKENIZER, passage_sentences
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.excerpts import EXCERPT_SOURCES, excerpts

FACT_KINDS = frozenset({"entity", "relation"})
LABEL_TOKENS = 6
"""Tokens an item's label and separators cost in the prompt (``[c:…]``, ``(sources: …)``)."""


def item_tokens(item: ContextItem, env: QueryContext) -> int:
    """Tokens ``item`` costs in the context (stored chunk size when known)."""
    known = item.metadata.get("n_tokens")
    return (int(known) if isinstance(known, int) else env.count_tokens(item.text)) + LABEL_TOKENS


@dataclass
class TokenFloor:
    """A lower bound of :func:`item_tokens` told without encoding: the stored count where known, else
    :meth:`~kgrag.documents.TokenCounter.at_least` (0 from a plug-in counter that cannot bound). The
    budget passes over most graph facts once its passages are in, and encoding each only to learn that
    was most of its CPU. The counter is asked for only when an item has no stored count (a BM25 query's
    passages all have one, and it loads no tokenizer)."""

    env: QueryContext

    @cached_property
    def _at_least(self) -> Callable[[str], int] | None:
        return getattr(self.env.get(TOKENIZER), "at_least", None)

    def __call__(self, item: ContextItem) -> int:
        known = item.metadata.get("n_tokens")
        if isinstance(known, int):
            return known + LABEL_TOKENS
        at_least = self._at_least
        return (at_least(item.text) if at_least is not None else 0) + LABEL_TOKENS


def similarities(items: Sequence[ContextItem], env: QueryContext, query: str) -> list[float | None]:
    """Cosine similarity of each item's stored vector to the query (None where no vector is stored).

    Entity and relation items take their vector from the hot graph index, which read it by the same text
    hash when it loaded (one store round trip per query saved); passages from the
    store's chunk vectors by id (the in-memory matrix the dense search reads, on SQLite: no round trip
    either); the rest are looked up in the store by the hash of their text."""
    if not env.get(VECTOR_COUNT):
        return [None] * len(items)
    found = _graph_vectors(items, env)
    rest = [item for item, (known, _) in zip(items, found, strict=True) if not known]
    by_id, by_hash = _passage_vectors(rest, env), _text_vectors(rest, env)
    vectors = [
        vector if known else _stored(item, by_id, by_hash) for item, (known, vector) in zip(items, found, strict=True)
    ]
    if all(vector is None for vector in vectors):
        return [None] * len(items)
    query_vector = env.embed_query(query)
    return [None if vector is None else float(vector @ query_vector) for vector in vectors]


def _is_passage(item: ContextItem) -> bool:
    """A hydrated passage: its text is its chunk's, so its vector is the chunk's (an excerpt's is not)."""
    return item.kind == "chunk" and bool(item.text) and not item.metadata.get("excerpt")


def _passage_vectors(items: Sequence[ContextItem], env: QueryContext) -> dict[str, np.ndarray]:
    ids = [item.id for item in items if _is_passage(item)]
    return env.store.vectors.chunk_vectors(env.model_id, ids) if ids else {}


def _text_vectors(items: Sequence[ContextItem], env: QueryContext) -> dict[str, np.ndarray]:
    hashes = {content_hash(item.text) for item in items if not _is_passage(item)}
    return env.store.vectors.get(env.model_id, sorted(hashes)) if hashes else {}


def _stored(item: ContextItem, by_id: dict[str, np.ndarray], by_hash: dict[str, np.ndarray]) -> np.ndarray | None:
    return by_id.get(item.id) if _is_passage(item) else by_hash.get(content_hash(item.text))


def _graph_vectors(items: Sequence[ContextItem], env: QueryContext) -> list[tuple[bool, np.ndarray | None]]:
    """``GraphIndex.fact_vector`` of each item (``(False, None)`` for passages and the like)."""
    if not any(item.kind in FACT_KINDS for item in items):
        return [(False, None)] * len(items)
    index = env.graph_index()
    return [
        index.fact_vector(item.kind, item.id, item.text) if item.kind in FACT_KINDS else (False, None) for item in items
    ]


def _passages_in_pipeline_order(items: Sequence[ContextItem], values: list[float]) -> list[float]:
    """The passages' values handed out again, best first, in the pipeline's order: a reranker judged the
    passages more finely than their cosines do, so it decides which passage comes first, while facts still
    compete against the same set of passage values. With large chunks, where two passages fill the budget,
    re-sorting reranked passages by cosine would throw the reranker's order away."""
    positions = [i for i, item in enumerate(items) if item.kind == "chunk"]
    reordered = list(values)
    for position, value in zip(positions, sorted((values[i] for i in positions), reverse=True), strict=True):
        reordered[position] = value
    return reordered


def _values(items: Sequence[ContextItem], sims: Sequence[float | None], fact_weight: float) -> list[float]:
    values = []
    for rank, (item, sim) in enumerate(zip(items, sims, strict=True)):
        base = sim if sim is not None else 1.0 / (2 + rank)  # rank-only value: below any fair similarity
        values.append(base * (1.0 if item.kind == "chunk" else fact_weight) - rank * 1e-6)
    return values


@dataclass(frozen=True)
class FitBudget:
    """Choose whole items within ``tokens`` (see the module docstring); ``fact_weight`` discounts facts."""

    tokens: int
    fact_weight: float = 0.8
    excerpts: bool = True
    """Fill the room the whole items leave with sentences of the next passages (:mod:`.excerpts`)."""
    name: str = "fit_budget"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        pool = state.items
        items = self._candidates(pool, state.k)
        mixed = any(item.kind != "chunk" for item in items)
        order = items
        if mixed:
            values = _values(items, similarities(items, env, state.query), self.fact_weight)
            if all("rerank" in item.scores for item in items if item.kind == "chunk"):
                values = _passages_in_pipeline_order(items, values)
            for item, value in zip(items, values, strict=True):
                item.scores["budget_value"] = round(value, 6)
            order = [items[i] for i in sorted(range(len(items)), key=lambda i: -values[i])]
        chosen, spent, by_kind = self._fill(order, env, state.k)
        kept = {id(item) for item in chosen}
        state.items = [item for item in items if id(item) in kept]  # selection by value, order by the pipeline
        added = self._excerpts(state, pool, chosen, self.tokens - spent, env) if self.excerpts else []
        if added:
            state.items.extend(added)
            by_kind["excerpt"] = sum(item_tokens(item, env) for item in added)
            spent += by_kind["excerpt"]
        state.context_tokens = spent
        state.record(self.name, {"tokens": self.tokens, "spent": spent, "by_kind": by_kind}, len(state.items), started)

    @staticmethod
    def _excerpts(
        state: QueryState, pool: Sequence[ContextItem], chosen: Sequence[ContextItem], room: int, env: QueryContext
    ) -> list[ContextItem]:
        """Excerpts of the pipeline's best passages left out of ``chosen``, within ``room`` and the cap of k
        passages."""
        whole = {item.id for item in chosen if item.kind == "chunk"}
        slots = min(EXCERPT_SOURCES, state.k - len(whole))
        if slots <= 0:
            return []
        left_out = [item for item in pool if item.kind == "chunk" and item.id not in whole]
        sources = [item for item in left_out if item.text.strip()][:slots]
        return excerpts(state.query, sources, room, env.count_tokens, LABEL_TOKENS, partial(passage_sentences, env))

    @staticmethod
    def _candidates(items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        """The pipeline's first k passages (its own ranking decides *which* passages) and every fact."""
        passages = [i for i in items if i.kind == "chunk" and i.text.strip()][:k]
        return passages + [i for i in items if i.kind != "chunk" and i.text.strip()]

    def _fill(self, order: Sequence[ContextItem], env: QueryContext, k: int) -> tuple[list[ContextItem], int, dict]:
        chosen: list[ContextItem] = []
        passages: set[str] = set()
        spent = 0
        floor = TokenFloor(env)
        by_kind: dict[str, int] = {}
        for item in order:
            if item.kind == "chunk" and len(passages) >= k:
                continue
            if item.kind != "chunk" and item.chunk_ids and passages.issuperset(item.chunk_ids):
                continue
            if chosen and floor(item) > self.tokens - spent:
                continue  # as the check below would, without counting its tokens
            cost = item_tokens(item, env)
            if spent + cost > self.tokens and chosen:
                continue
            chosen.append(item)
            spent += cost
            by_kind[item.kind] = by_kind.get(item.kind, 0) + cost
            if item.kind == "chunk":
                passages.add(item.id)
        return chosen, spent, by_kind
