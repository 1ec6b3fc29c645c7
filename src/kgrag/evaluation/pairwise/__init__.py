"""Pairwise comparison of two pipelines' answers: the unbiased procedure of zeng-unbiased-eval and the
two-pass win rate of deg-rag, with their statistics and the length alignment they rely on."""

from kgrag.evaluation.pairwise.types import AnswerPair, PairwiseSettings

__all__ = ["AnswerPair", "PairwiseSettings"]
