"""Collecting answer pairs from two pipelines, settings from the config, and scores for the store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kgrag.config.evaluation import EvaluationConfig
from kgrag.core.eval_records import EvalScore
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.pairwise.types import AnswerPair, PairwiseSettings
from kgrag.generation import QueryResponse

_VALUE = {"A": 1.0, "B": 0.0, "tie": 0.5}


def pairwise_settings(ev: EvaluationConfig) -> PairwiseSettings:
    return PairwiseSettings(
        repeats=ev.pairwise_repeats,
        trials=ev.pairwise_trials,
        tolerance_words=ev.length_tolerance_words,
        length_attempts=ev.length_attempts,
        confidence=ev.confidence,
        bootstrap_samples=ev.bootstrap_samples,
    )


def _context(response: QueryResponse) -> str:
    return "\n\n".join(item.text for item in response.result.items)


def answer_pairs(
    items: Sequence[QAItem],
    a: str,
    b: str,
    query: Callable[[str, str], QueryResponse],
    on_question: Callable[[], None] | None = None,
) -> list[AnswerPair]:
    pairs = []
    for item in items:
        ra, rb = query(item.question, a), query(item.question, b)
        pairs.append(
            AnswerPair(
                item.id, item.question, item.question_type, ra.answer.text, rb.answer.text, _context(ra), _context(rb)
            )
        )
        if on_question is not None:
            on_question()
    return pairs


def pairwise_scores(run_id: str, a: str, b: str, result: dict[str, Any]) -> list[EvalScore]:
    """One score per question per trial: 1 = A won, 0 = B won, 0.5 = tie, None = unmeasured."""
    scores = []
    for row in result.get("per_question", []):
        for trial, outcome in enumerate(row["outcomes"]):
            value = None if outcome is None else _VALUE[outcome]
            note = "" if outcome is not None else "judge failed in both repeats"
            scores.append(
                EvalScore(
                    run_id,
                    trial,
                    f"{a} vs {b}",
                    row["question_id"],
                    row["question_type"],
                    "pairwise.a_wins",
                    value,
                    note,
                )
            )
    return scores
