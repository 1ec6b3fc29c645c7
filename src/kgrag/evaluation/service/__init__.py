"""Evaluation as a service over one workspace: what ``ws.eval`` runs, assembled here from the workspace's
parts (:class:`EvalParts`, :class:`Querying`) and its registries, which the workspace passes in."""

from kgrag.evaluation.service.ports import EvalParts, Querying
from kgrag.evaluation.service.requests import EvalRequest, PairwiseRequest, Questions, questions_of
from kgrag.evaluation.service.runs import EvalService
from kgrag.evaluation.service.stored import StoredRuns

__all__ = [
    "EvalParts",
    "EvalRequest",
    "EvalService",
    "PairwiseRequest",
    "Querying",
    "Questions",
    "StoredRuns",
    "questions_of",
]
