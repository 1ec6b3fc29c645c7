"""``kgrag tune reranker``: fit the ``fused`` reranker's weights on a labelled dataset.

The shipped weights were fitted on GraphRAG-Bench Medical; a corpus with other wording may want others.
Each question's pool is retrieved once (the ``rerank`` pipeline up to its reranker), and for every
candidate two things are kept: its :func:`~kgrag.models.rerankers.fused.fused_features` row and which of
the question's evidence sentences it holds on its own (the evidence-recall rule). Any weights then rank
the pool with one matrix product, the context is filled as the budget step would fill it (the first k
candidates, whole, skipping one that no longer fits), and recall is the share of evidence sentences the
chosen candidates hold — so a weight search costs no retrieval and no text matching.

The search is coordinate ascent on that recall (the quantity the user cares about, not a surrogate
loss): one weight at a time over a small grid, keeping a change only when it raises recall, until a
round changes nothing. With a held-out share, the weights are fitted on the rest and the held-out
questions are scored at the fitted weights, at the weights in use and at coverage alone (all zero), so
an in-sample gain shows as none.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace

import numpy as np

from kgrag.core.context import ContextItem
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.stats.cells import DifferenceCell
from kgrag.evaluation.stats.intervals import Bootstrap, paired
from kgrag.models.rerankers.fused import FusedReranker, FusedWeights, fused_features
from kgrag.tuning.lambda_fit import mean_by_type, split_holdout

GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1.0)
MAX_ROUNDS = 4
WEIGHT_NAMES = tuple(f.name for f in fields(FusedWeights))


@dataclass(frozen=True)
class ScoredPool:
    """One question's pool, reduced to what a weight search needs."""

    question_type: str
    features: np.ndarray
    """(candidates × 6) :func:`fused_features` rows."""
    holds: np.ndarray
    """(candidates × evidence sentences) booleans: the candidate alone holds the sentence."""
    tokens: np.ndarray
    """Context tokens each candidate costs."""


def score_pool(
    item: QAItem,
    pool: Sequence[ContextItem],
    cost: Callable[[ContextItem], int],
    threshold: float,
    reranker: FusedReranker | None = None,
) -> ScoredPool:
    """Reduce a retrieved pool to features (with ``reranker``'s cosine fill and sentence scores, as it
    would rank the pool), evidence holdings and token costs."""
    holds = np.array(
        [[evidence_recall([sentence], [c.text], threshold) == 1.0 for sentence in item.evidence] for c in pool],
        dtype=bool,
    ).reshape(len(pool), len(item.evidence))
    tokens = np.array([cost(candidate) for candidate in pool], dtype=np.int64)
    features = reranker.features(item.question, pool) if reranker is not None else fused_features(item.question, pool)
    return ScoredPool(item.question_type, features, holds, tokens)


def pool_recall(pool: ScoredPool, weights: FusedWeights, k: int, budget: int) -> float:
    """Evidence recall of the context the budget step would build from ``pool`` ranked by ``weights``."""
    if not len(pool.tokens):
        return 0.0
    scores = pool.features @ weights.vector()
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
    chosen: list[int] = []
    spent = 0
    for index in order:
        if spent + pool.tokens[index] > budget and chosen:
            continue
        chosen.append(index)
        spent += int(pool.tokens[index])
    return float(pool.holds[chosen].any(axis=0).mean())


def mean_recall(pools: Sequence[ScoredPool], weights: FusedWeights, k: int, budget: int) -> float:
    return statistics.fmean(pool_recall(p, weights, k, budget) for p in pools) if pools else 0.0


def recall_by_type(pools: Sequence[ScoredPool], weights: FusedWeights, k: int, budget: int) -> dict[str, float]:
    return mean_by_type((pool.question_type, pool_recall(pool, weights, k, budget)) for pool in pools)


def coordinate_ascent(pools: Sequence[ScoredPool], start: FusedWeights, k: int, budget: int) -> FusedWeights:
    """Best weights found from ``start``, one weight at a time over :data:`GRID`; ties keep the current."""
    best, best_recall = start, mean_recall(pools, start, k, budget)
    for _ in range(MAX_ROUNDS):
        improved = False
        for name in WEIGHT_NAMES:
            for value in GRID:
                candidate = replace(best, **{name: value})
                recall = mean_recall(pools, candidate, k, budget)
                if recall > best_recall + 1e-12:
                    best, best_recall, improved = candidate, recall, True
        if not improved:
            break
    return best


@dataclass
class RerankerTuneReport:
    """Fitted weights, recall at the weights in use and at the fitted ones, and the held-out check."""

    questions: int
    k: int
    budget: int
    current: FusedWeights
    fitted: FusedWeights
    recall_current: float = 0.0
    recall_fitted: float = 0.0
    holdout_questions: int = 0
    holdout: dict[str, dict[str, float]] = field(default_factory=dict)
    """Rows ``fitted``, ``current``, ``coverage`` → recall per question type and ``All``."""
    holdout_differences: dict[str, dict[str, DifferenceCell]] = field(default_factory=dict)
    """``fitted − current`` and ``fitted − coverage`` → column → ``{mean, ci95, n, p}`` (paired over the
    held-out questions, :mod:`kgrag.evaluation.stats`)."""

    def toml(self) -> str:
        """The ``[rerank]`` lines that select the fitted weights."""
        lines = ["[rerank]", 'provider = "fused"', "", "[rerank.fused]"]
        lines += [f"{name} = {getattr(self.fitted, name):g}" for name in WEIGHT_NAMES]
        return "\n".join(lines)


def tune_fused_weights(
    items: Sequence[QAItem],
    pool_of: Callable[[QAItem], ScoredPool],
    current: FusedWeights,
    k: int,
    budget: int,
    *,
    holdout: float = 0.0,
    seed: int = 0,
) -> RerankerTuneReport:
    """Fit the ``fused`` weights on the labelled ``items`` (all, or all but a held-out share)."""
    labelled = [item for item in items if item.evidence]
    fit, held = split_holdout(labelled, holdout, seed) if holdout else (labelled, [])
    pools = {id(item): pool_of(item) for item in labelled}
    fit_pools = [pools[id(item)] for item in fit]
    fitted = coordinate_ascent(fit_pools, current, k, budget)
    report = RerankerTuneReport(
        questions=len(fit),
        k=k,
        budget=budget,
        current=current,
        fitted=fitted,
        recall_current=mean_recall(fit_pools, current, k, budget),
        recall_fitted=mean_recall(fit_pools, fitted, k, budget),
        holdout_questions=len(held),
    )
    if held:
        held_pools = [pools[id(item)] for item in held]
        rows = {"fitted": fitted, "current": current, "coverage": FusedWeights(0.0, 0.0, 0.0, 0.0, 0.0)}
        report.holdout = {row: recall_by_type(held_pools, weights, k, budget) for row, weights in rows.items()}
        report.holdout_differences = _differences(held_pools, rows, k, budget)
    return report


def _differences(
    pools: Sequence[ScoredPool], rows: dict[str, FusedWeights], k: int, budget: int
) -> dict[str, dict[str, DifferenceCell]]:
    """The fitted row's paired difference to each other row, per type, ``All`` and ``Macro``."""
    values = {
        row: {f"q{i}": (pool.question_type, pool_recall(pool, weights, k, budget)) for i, pool in enumerate(pools)}
        for row, weights in rows.items()
    }
    settings = Bootstrap()
    return {
        f"fitted − {row}": {
            c: {**e.as_cell(), "p": e.p_value()} for c, e in paired(values["fitted"], v, settings).items()
        }
        for row, v in values.items()
        if row != "fitted"
    }
