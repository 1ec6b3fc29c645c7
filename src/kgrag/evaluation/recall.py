"""LLM-free evidence recall: did the retrieved context contain the evidence sentences?

An evidence sentence counts as recalled when at least ``threshold`` of its content words (see
:func:`kgrag.documents.words.content_words`) occur in a single retrieved item. Evidence in
GraphRAG-Bench is often lightly paraphrased, so exact matching would undercount; 0.7 is the default
(config ``evaluation.evidence_overlap``).
"""

from __future__ import annotations

from collections.abc import Sequence

from kgrag.documents.words import content_words


def evidence_hit(evidence: str, item_words: Sequence[set[str]], threshold: float) -> bool:
    words = content_words(evidence)
    if not words:
        return False
    return any(len(words & item) / len(words) >= threshold for item in item_words)


def usable_evidence(evidence: Sequence[str]) -> list[str]:
    """The evidence sentences recall can be scored on: those with a content word."""
    return [e for e in evidence if content_words(e)]


def evidence_recall(evidence: Sequence[str], retrieved_texts: Sequence[str], threshold: float) -> float | None:
    """Share of evidence sentences recalled; None when the question has no usable evidence."""
    usable = usable_evidence(evidence)
    if not usable:
        return None
    item_words = [content_words(text) for text in retrieved_texts]
    return sum(evidence_hit(e, item_words, threshold) for e in usable) / len(usable)
