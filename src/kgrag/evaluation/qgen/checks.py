"""De-duplication and the answerability check of generated questions.

Duplicates: content-word Jaccard similarity at or above ``evaluation.qgen_dedup_threshold`` (against
everything kept so far). Answerability: an LLM check (is it answerable from its source alone, is the
answer right, is it self-contained), or without an LLM a lexical check that most of the answer's
content words occur in the source. Evidence sentences are the source sentences closest to the answer,
so LLM-free evidence recall works on generated sets as on GraphRAG-Bench.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgrag.documents.words import content_words
from kgrag.evaluation.metrics.statements import statements


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def is_duplicate(question: str, kept: Sequence[set[str]], threshold: float) -> bool:
    words = content_words(question)
    return any(jaccard(words, other) >= threshold for other in kept)


def lexically_answerable(answer: str, passages: Sequence[str], share: float = 0.5) -> bool:
    words = content_words(answer)
    source = set().union(*(content_words(p) for p in passages)) if passages else set()
    return bool(words) and len(words & source) / len(words) >= share


def evidence_for(answer: str, passages: Sequence[str], limit: int = 2) -> list[str]:
    """The source sentences sharing the most content words with the answer."""
    target = content_words(answer)
    ranked = sorted(
        (s for p in passages for s in statements(p)), key=lambda s: len(target & content_words(s)), reverse=True
    )
    return [s for s in ranked[:limit] if target & content_words(s)]
