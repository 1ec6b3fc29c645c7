"""De-duplication and the answerability checks of generated questions.

Duplicates: content-word Jaccard similarity at or above ``evaluation.qgen_dedup_threshold`` (against
everything kept so far). Support: most of the answer's content words occur in the passages the question
cites (never in graph descriptions, which are a model's summary, not the text). Several passages: a
multi-fact question's words must be spread over its cited passages, no single one holding nearly all of
them. Evidence sentences are the cited passages' sentences closest to the answer, so LLM-free evidence
recall works on generated sets as on GraphRAG-Bench.
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


def needs_several(question: str, answer: str, passages: Sequence[str], single_share: float = 0.9) -> bool:
    """Whether a question-answer pair draws on two or more ``passages``: of its content words that the
    passages hold, no single passage holds ``single_share`` or more."""
    if len(passages) < 2:
        return False
    words = [content_words(p) for p in passages]
    wanted = (content_words(question) | content_words(answer)) & set().union(*words)
    return bool(wanted) and all(len(wanted & w) < single_share * len(wanted) for w in words)


def evidence_per_passage(question: str, answer: str, passages: Sequence[str]) -> list[str]:
    """The sentence of each passage sharing the most content words with the question and answer."""
    target = content_words(question) | content_words(answer)
    found: list[str] = []
    for passage in passages:
        ranked = sorted(statements(passage), key=lambda s: len(target & content_words(s)), reverse=True)
        if ranked and target & content_words(ranked[0]):
            found.append(ranked[0])
    return found
