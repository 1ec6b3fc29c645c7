"""Question generation: from the graph at node, edge and subgraph level (zeng-unbiased-eval) and from
documents as answer-given, single-fact and multi-fact questions (feldt-hellstrom-2026), then
de-duplicated and checked for answerability."""

from kgrag.evaluation.qgen.generate import DOC_KINDS, GRAPH_LEVELS, QGenResult, generate_questions

__all__ = ["DOC_KINDS", "GRAPH_LEVELS", "QGenResult", "generate_questions"]
