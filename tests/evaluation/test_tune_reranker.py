"""Fitting the ``fused`` reranker's weights: recall of hand-made pools, the ascent, the held-out rows."""

from __future__ import annotations

import numpy as np
import pytest

from kgrag.core.context import ContextItem
from kgrag.evaluation.datasets import QAItem
from kgrag.models.rerankers.fused import FusedWeights
from kgrag.tuning.reranker_fit import (
    ScoredPool,
    coordinate_ascent,
    pool_recall,
    score_pool,
    tune_fused_weights,
)

ZERO = FusedWeights(0.0, 0.0, 0.0, 0.0, 0.0)


def _pool(
    coverage: list[float], dense: list[float], holds: list[list[bool]], tokens: list[int], qtype: str = "Fact Retrieval"
) -> ScoredPool:
    """Features with only coverage and cosine set (ranks neutral), so the cosine weight decides ties."""
    n = len(coverage)
    features = np.zeros((n, 6))
    features[:, 0], features[:, 1] = coverage, dense
    return ScoredPool(qtype, features, np.array(holds, dtype=bool), np.array(tokens))


def test_recall_fills_the_budget_like_the_budget_step() -> None:
    pool = _pool([1.0, 0.9, 0.8], [0, 0, 0], [[True, False], [False, False], [False, True]], [600, 500, 300])
    # top 2 by coverage: 600 fits, 500 does not (skipped), 300 fits: both sentences held
    assert pool_recall(pool, ZERO, k=3, budget=1000) == 1.0
    assert pool_recall(pool, ZERO, k=2, budget=1000) == 0.5  # only the first k candidates compete
    assert pool_recall(pool, ZERO, k=3, budget=100) == 0.5  # the first is kept even over budget


def test_ascent_finds_the_weight_that_breaks_coverage_ties_and_never_loses() -> None:
    # Both candidates cover the question equally; the one holding the evidence has the higher cosine.
    pools = [_pool([0.5, 0.5], [0.1, 0.9], [[False], [True]], [400, 400]) for _ in range(4)]
    assert pool_recall(pools[0], ZERO, k=1, budget=1000) == 0.0
    fitted = coordinate_ascent(pools, ZERO, k=1, budget=1000)
    assert fitted.similarity > 0 and pool_recall(pools[0], fitted, k=1, budget=1000) == 1.0
    stays = coordinate_ascent(pools, fitted, k=1, budget=1000)
    assert stays == fitted  # no change without a gain


def _item(n: int, qtype: str) -> QAItem:
    return QAItem(id=f"q{n}", question="adrenal tumors imaging", answer="", question_type=qtype,
                  evidence=["Adrenal tumors are found on imaging tests."])  # fmt: skip


def test_score_pool_marks_which_candidate_holds_which_sentence() -> None:
    pool = [
        ContextItem(kind="chunk", id="a", text="Kidneys filter blood.", score=0, scores={"dense": 0.2}),
        ContextItem(kind="chunk", id="b", text="Adrenal tumors are often found on imaging tests.", score=0),
    ]
    scored = score_pool(_item(0, "Fact Retrieval"), pool, lambda c: len(c.text), 0.7)
    assert scored.holds.tolist() == [[False], [True]] and scored.tokens.tolist() == [21, 48]
    assert scored.features.shape == (2, 6) and scored.features[1, 0] == pytest.approx(1.0)


def test_tuning_fits_on_the_rest_and_scores_the_held_out_share() -> None:
    items = [_item(n, "Fact Retrieval" if n % 2 else "Complex Reasoning") for n in range(10)]
    asked: list[str] = []

    def pool_of(item: QAItem) -> ScoredPool:
        asked.append(item.id)
        return _pool([0.5, 0.5], [0.1, 0.9], [[False], [True]], [400, 400], item.question_type)

    report = tune_fused_weights(items, pool_of, ZERO, k=1, budget=1000, holdout=0.4, seed=0)
    assert sorted(asked) == sorted(i.id for i in items)  # one pool per question, shared by fit and held out
    assert (report.questions, report.holdout_questions) == (6, 4)
    assert report.recall_current == 0.0 and report.recall_fitted == 1.0
    assert report.holdout["fitted"]["All"] == 1.0 and report.holdout["coverage"]["All"] == 0.0
    assert set(report.holdout["fitted"]) == {"All", "Fact Retrieval", "Complex Reasoning"}
    gain = report.holdout_differences["fitted − coverage"]["All"]
    assert gain["mean"] == 1.0 and gain["n"] == 4 and "fitted − current" in report.holdout_differences
    assert report.toml().splitlines()[:4] == ["[rerank]", 'provider = "fused"', "", "[rerank.fused]"]
    assert f"\nsimilarity = {report.fitted.similarity:g}" in report.toml()
