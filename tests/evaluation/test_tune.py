"""λ fitting with a held-out split, on hand-made wide retrievals (no workspace)."""

from __future__ import annotations

from collections import Counter

import pytest

from kgrag.core.context import ContextItem, RetrievalResult
from kgrag.core.errors import KgragError
from kgrag.evaluation.datasets import QAItem
from kgrag.tuning.lambda_fit import split_holdout, tune_lambda

EVIDENCE = "Osprey firmware rollouts are staged after the incident."
TYPES = ("Fact Retrieval",) * 6 + ("Complex Reasoning",) * 3 + ("Contextual Summarize",)


def _items() -> list[QAItem]:
    return [QAItem(id=f"q{n}", question=f"question {n}", answer="", question_type=t, evidence=[EVIDENCE])
            for n, t in enumerate(TYPES)]  # fmt: skip


def _wide(question: str) -> RetrievalResult:
    """The dense favourite says nothing; the graph's passage holds the evidence: graph wins for λ ≤ 0.6."""
    dense = ContextItem(
        kind="chunk", id="a", text="Unrelated words.", score=0, scores={"dense_norm": 1.0, "graph_norm": 0.0}
    )
    graph = ContextItem(kind="chunk", id="b", text=EVIDENCE, score=0, scores={"dense_norm": 0.5, "graph_norm": 1.0})
    return RetrievalResult(pipeline="paths", query=question, items=[dense, graph])


def test_split_is_stratified_disjoint_and_seeded() -> None:
    items = _items()
    fit, held = split_holdout(items, 0.3, seed=0)
    assert len(held) == 3 and len(fit) == 7
    assert {i.id for i in fit}.isdisjoint({i.id for i in held}) and len(fit) + len(held) == len(items)
    assert Counter(i.question_type for i in held) == {"Fact Retrieval": 1, "Complex Reasoning": 1,
                                                      "Contextual Summarize": 1}  # fmt: skip
    assert split_holdout(items, 0.3, seed=0) == (fit, held)
    assert {i.id for i in split_holdout(items, 0.3, seed=3)[1]} != {i.id for i in held}


@pytest.mark.parametrize("share", [0.0, 1.0, 0.01, -0.2])
def test_a_split_that_leaves_a_side_empty_is_refused(share: float) -> None:
    with pytest.raises(KgragError, match="holdout"):
        split_holdout(_items(), share, seed=0)


def test_lambda_is_fitted_without_the_held_out_questions() -> None:
    asked: list[str] = []

    def wide(question: str) -> RetrievalResult:
        asked.append(question)
        return _wide(question)

    report = tune_lambda(_items(), "paths", 1, 0.7, wide, 0.7, holdout=0.3, seed=0, current=0.8)
    assert len(asked) == 10  # one wide retrieval per question, shared by fit and held-out scoring
    assert report.questions == 7 and report.best == 0.6  # ties 0.0–0.6: the one nearest the default
    assert report.recall_by_lambda[0.6] == 1.0 and report.recall_by_lambda[0.7] == 0.0
    held = report.holdout
    assert held is not None and held.questions == 3 and held.current_lambda == 0.8
    assert held.recall["fitted"] == dict.fromkeys(
        ("All", "Complex Reasoning", "Contextual Summarize", "Fact Retrieval"), 1.0
    )
    assert held.recall["current"]["All"] == 0.0 and held.recall["dense"]["All"] == 0.0
    assert held.intervals["fitted"]["All"] == {"mean": 1.0, "ci95": [1.0, 1.0], "n": 3}
    gain = held.differences["fitted − current"]["All"]
    assert gain["mean"] == 1.0 and gain["n"] == 3 and set(held.differences) == {"fitted − current", "fitted − dense"}
    assert held.intervals["fitted"]["Fact Retrieval"]["n"] == 1 and held.intervals["fitted"]["Fact Retrieval"]["small"]


def test_without_a_holdout_every_question_fits() -> None:
    report = tune_lambda(_items(), "paths", 1, 0.7, _wide, 0.7)
    assert report.questions == 10 and report.holdout is None and report.best == 0.6
