"""The `unbiased` judge's settings: ``[evaluation.judges.unbiased]`` (zeng-unbiased-eval's N, M and length
alignment). What both pairwise judges share (their temperature, the confidence level, the bootstrap)
stays in ``[evaluation]``."""

from __future__ import annotations

from pydantic import Field

from kgrag.config.base import Section


class UnbiasedJudgeSettings(Section):
    """Length-aligned, both orders, N repeats, M trials (zeng-unbiased-eval)."""

    repeats: int = Field(
        2,
        ge=1,
        description="N: the same pairwise prompt is sent N times per order and averaged (2, zeng-unbiased-eval).",
    )
    trials: int = Field(
        25,
        ge=1,
        description="M: whole pairwise evaluations over all questions; win rates are reported over trials "
        "(25, zeng-unbiased-eval).",
    )
    length_tolerance_words: int = Field(
        10,
        ge=0,
        description="Most words two answers may differ by and count as length-aligned (10, zeng-unbiased-eval); "
        "shorter answers get `length_tolerance_share` of their length instead.",
    )
    length_tolerance_share: float = Field(
        0.05,
        ge=0,
        le=1,
        description="Length tolerance relative to the longer answer: min(length_tolerance_words, "
        "max(length_tolerance_min_words, share × words)); the paper's 10 words are ~7% of its ~150-word answers.",
    )
    length_tolerance_min_words: int = Field(
        2, ge=0, description="Smallest length tolerance in words, for very short answers."
    )
    length_attempts: int = Field(
        3,
        ge=1,
        description="Regenerations of the shorter answer with a target length (by its own pipeline's "
        "generator) before the forced pad step; a few generation calls against 2·N·M judge calls per pair.",
    )
