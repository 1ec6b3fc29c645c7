"""Evaluation: datasets, LLM-free and LLM-judged metrics, reports."""

from kgrag.evaluation.datasets import QAItem, load_dataset
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport, evaluate_retrieval
from kgrag.evaluation.retrieval_report import write_report

__all__ = ["QAItem", "RetrievalEvalReport", "evaluate_retrieval", "evidence_recall", "load_dataset", "write_report"]
