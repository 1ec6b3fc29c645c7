"""Inputs and settings of a pairwise comparison."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from kgrag.evaluation.judges.base import JudgeSetup


@dataclass(frozen=True)
class AnswerPair:
    """One question answered by pipeline A and pipeline B, with the context each answer came from
    (length alignment rewrites an answer from its own context only)."""

    question_id: str
    question: str
    question_type: str
    answer_a: str
    answer_b: str
    context_a: str = ""
    context_b: str = ""


@dataclass(frozen=True)
class PairwiseSettings:
    """The knobs of the unbiased procedure; switching them off gives the naive single-order, single-trial,
    no-tie comparison the procedure was designed to replace (kept to show the difference)."""

    repeats: int = 2
    trials: int = 25
    align_lengths: bool = True
    both_orders: bool = True
    allow_ties: bool = True
    tolerance_words: int = 10
    length_attempts: int = 2
    confidence: float = 0.95
    bootstrap_samples: int = 2000
    seed: int = 0

    @classmethod
    def naive(cls) -> PairwiseSettings:
        return cls(repeats=1, trials=1, align_lengths=False, both_orders=False, allow_ties=False)


class PairwiseJudge(Protocol):
    """Compares pipeline A with pipeline B over answer pairs; returns a JSON-able result."""

    name: str
    paper: str
    prompts: tuple[str, ...]

    def compare(self, pairs: list[AnswerPair], setup: JudgeSetup, settings: PairwiseSettings) -> dict[str, Any]: ...
