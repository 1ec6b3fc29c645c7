"""Judges: answer judges score one answer (``panel``, ``dimensions``); pairwise judges compare two
pipelines (``two-pass``, ``unbiased``, in :mod:`kgrag.evaluation.pairwise`). All are chosen by name
through the ``judge`` registry."""

from kgrag.evaluation.judges.base import AnswerJudge, JudgeSetup, judge_registry

__all__ = ["AnswerJudge", "JudgeSetup", "judge_registry"]
