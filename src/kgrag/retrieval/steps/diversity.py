"""Diversity-aware choice of the passages that fill the context: greedy maximal marginal relevance
(carbonell-goldstein-1998) over a reranked pool.

A reranker scores each passage alone, so its top passages can say the same thing twice: neighbouring chunks
of one document (which share the chunking overlap) or a paragraph repeated across pages. The budget then
spends room on a restatement that a less redundant passage could have used for more evidence. This step
chooses the ``k`` passages one at a time, each time the passage with the highest

    relevance − penalty × (its largest similarity to a passage already chosen)

where relevance is the reranker's score rescaled to [0, 1] over the pool (so ``penalty`` means the same for
every question and every reranker's score range) and similarity is the cosine of the stored chunk vectors,
taken as 1 for two chunks of one document with adjacent ordinals (they overlap in the text). The first
passage is always the reranker's best; ``penalty = 0`` keeps the reranker's order exactly. Graph facts pass
through after the passages, for the budget step to weigh.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgrag.core.context import ContextItem
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps.basic import QueryState

SCORE_KEY = "rerank"
"""The score the relevance is read from (a passage without it falls back to its rank)."""


def relevance(items: Sequence[ContextItem]) -> np.ndarray:
    """Each passage's reranker score rescaled to [0, 1] over ``items`` (all equal: all 1); a passage
    without a reranker score is valued by its rank, below every scored one."""
    raw = [item.scores.get(SCORE_KEY) for item in items]
    known = [float(value) for value in raw if value is not None]
    if not known:
        return np.linspace(1.0, 0.0, num=len(items)) if len(items) > 1 else np.ones(len(items))
    low, span = min(known), max(known) - min(known)
    values = [
        -1e-6 * (1 + i) if value is None else (float(value) - low) / span if span > 0 else 1.0
        for i, value in enumerate(raw)
    ]
    return np.array(values)


def similarity_matrix(items: Sequence[ContextItem], env: QueryContext) -> np.ndarray:
    """Pairwise similarity of the passages: the cosine of their stored chunk vectors (0 where one has
    none), and 1 for chunks of one document whose ordinals are adjacent or equal (overlapping text)."""
    n = len(items)
    stored = env.store.vectors.chunk_vectors(env.model_id, [item.id for item in items]) if n else {}
    sims = np.zeros((n, n))
    present = [i for i, item in enumerate(items) if item.id in stored]
    if present:
        matrix = np.stack([np.asarray(stored[items[i].id], dtype=float) for i in present])
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix / np.where(norms > 0, norms, 1.0)
        sims[np.ix_(present, present)] = matrix @ matrix.T
    for i, a in enumerate(items):
        for j in range(i + 1, n):
            if _overlapping(a, items[j]):
                sims[i, j] = sims[j, i] = 1.0
    return sims


def _overlapping(a: ContextItem, b: ContextItem) -> bool:
    ord_a, ord_b = a.metadata.get("ord"), b.metadata.get("ord")
    return (
        a.doc_id is not None
        and a.doc_id == b.doc_id
        and isinstance(ord_a, int)
        and isinstance(ord_b, int)
        and abs(ord_a - ord_b) <= 1
    )


def mmr_order(rel: np.ndarray, sims: np.ndarray, penalty: float, k: int) -> list[int]:
    """Indices of the ``k`` passages greedy MMR chooses, in the order chosen (ties: the earlier passage)."""
    n = len(rel)
    chosen: list[int] = []
    closest = np.full(n, -np.inf)  # each passage's largest similarity to the chosen ones
    free = np.ones(n, dtype=bool)
    while len(chosen) < min(k, n):
        gain = rel - penalty * np.where(np.isfinite(closest), closest, 0.0)
        pick = int(np.flatnonzero(free)[np.argmax(gain[free])])
        chosen.append(pick)
        free[pick] = False
        closest = np.maximum(closest, sims[pick])
    return chosen


@dataclass(frozen=True)
class Diversify:
    """Choose ``k`` of the reranked passages by greedy MMR (see the module docstring), facts kept after them.
    Passages must be hydrated (the document and ordinal tell overlapping chunks apart)."""

    penalty: float
    name: str = "diversify"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        passages = [item for item in state.items if item.kind == "chunk"]
        facts = [item for item in state.items if item.kind != "chunk"]
        if self.penalty > 0 and len(passages) > 1:
            order = mmr_order(relevance(passages), similarity_matrix(passages, env), self.penalty, state.k)
        else:
            order = list(range(min(state.k, len(passages))))
        moved = sum(1 for rank, i in enumerate(order) if rank != i)
        state.items = [passages[i] for i in order] + facts
        state.record(self.name, {"penalty": self.penalty, "k": state.k, "moved": moved}, len(state.items), started)
