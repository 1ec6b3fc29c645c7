"""Inputs and settings of a pairwise comparison."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from kgrag.evaluation.judges.base import JudgeSetup
from kgrag.evaluation.pairwise.payloads import PairwiseResult

Side = Literal["a", "b"]


class AnswerWriter(Protocol):
    """A pipeline's own generation step for one question, re-using the context it retrieved: length
    alignment asks it for an answer of about ``target_words`` words (zeng-unbiased-eval changes the
    answer-generating prompt, not the answer). ``None`` means it cannot (a pipeline with its own answer
    step, no LLM, an "I don't know" or empty reply), and the judge model rewrites instead."""

    def regenerate(self, target_words: int, attempt: int) -> str | None: ...

    def pad(self, answer: str, missing_words: int) -> str | None: ...


@dataclass(frozen=True)
class AnswerPair:
    """One question answered by pipeline A and pipeline B, with the context each answer came from
    (length alignment rewrites an answer from its own context only) and, where available, each
    pipeline's own generation step for that question (``writer_a``/``writer_b``)."""

    question_id: str
    question: str
    question_type: str
    answer_a: str
    answer_b: str
    context_a: str = ""
    context_b: str = ""
    writer_a: AnswerWriter | None = field(default=None, compare=False, repr=False)
    writer_b: AnswerWriter | None = field(default=None, compare=False, repr=False)

    def answer(self, side: Side) -> str:
        return self.answer_a if side == "a" else self.answer_b

    def context(self, side: Side) -> str:
        return self.context_a if side == "a" else self.context_b

    def writer(self, side: Side) -> AnswerWriter | None:
        return self.writer_a if side == "a" else self.writer_b

    def mirrored(self) -> AnswerPair:
        """A's answer on both sides: the A/A check, which an unbiased judge must call a tie."""
        return AnswerPair(
            self.question_id,
            self.question,
            self.question_type,
            self.answer_a,
            self.answer_a,
            self.context_a,
            self.context_a,
            self.writer_a,
            self.writer_a,
        )


@dataclass(frozen=True)
class PairwiseSettings:
    """The knobs of the unbiased procedure; switching them off gives the naive single-order, single-trial,
    unaligned comparison the procedure was designed to replace (kept to show the difference). Equal
    totals are ties in both; the naive protocol's forced choice is not imitated by handing them to A.

    Length tolerance for a pair whose longer answer has L words:
    ``min(tolerance_words, max(tolerance_min_words, round(tolerance_share * L)))``. zeng-unbiased-eval
    allows 10 words on answers of about 200 tokens (~150 words, so ~7 %) and shows a 25-token gap
    (12.5 %) swinging win rates by over 50 points: a fixed 10 words is a third or more of a short
    answer, so short answers get a tolerance in proportion (5 %, at least 2 words), capped at the paper's
    10 words for long ones. The tolerance only decides which pairs are discarded: with ``exact_lengths``
    (the default) alignment still closes any gap inside it, since a judge that prefers longer answers
    turns a small one-sided gap into verdicts; ``exact_lengths=False`` is the paper's procedure, which
    leaves gaps inside the tolerance as they are."""

    repeats: int = 2
    trials: int = 25
    align_lengths: bool = True
    both_orders: bool = True
    tolerance_words: int = 10
    tolerance_share: float = 0.05
    tolerance_min_words: int = 2
    length_attempts: int = 3
    exact_lengths: bool = True
    confidence: float = 0.95
    bootstrap_samples: int = 2000
    seed: int = 0
    temperature: float | None = None
    protocol: str = "unbiased"

    @classmethod
    def naive(cls) -> PairwiseSettings:
        return cls(repeats=1, trials=1, align_lengths=False, both_orders=False, protocol="naive")

    def tolerance(self, longer_words: int) -> int:
        """Words two answers may differ by and still count as length-aligned."""
        relative = max(self.tolerance_min_words, round(self.tolerance_share * longer_words))
        return min(self.tolerance_words, relative)


class PairwiseJudge(Protocol):
    """Compares pipeline A with pipeline B over answer pairs; returns a JSON-able result."""

    name: str
    paper: str
    prompts: tuple[str, ...]

    def compare(self, pairs: list[AnswerPair], setup: JudgeSetup, settings: PairwiseSettings) -> PairwiseResult: ...
