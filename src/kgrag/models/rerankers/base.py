"""What a reranker factory receives, and the one helper every reranker uses to apply its scores."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kgrag.core.context import ContextItem
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient

Similarities = Callable[[str, Sequence[ContextItem]], list[float | None]]
"""``(query, items) -> cosine per item``, from vectors the index already stored (no model call for them)."""


@dataclass(frozen=True)
class RerankResources:
    """The workspace's models, as factories: a reranker that does not need one never creates it (an HTTP
    reranker never loads the embedder; the offline one never builds an LLM client)."""

    embedder: Callable[[], Embedder]
    llm: Callable[[], LLMClient]
    similarities: Similarities | None = None
    """Cosine of each item's stored vector to the query (None where none is stored); lets a reranker
    compare passages that reached the pool by a stream without a cosine (graph provenance, BM25)."""
    sentence_similarities: Similarities | None = None
    """Mean cosine of each passage's best sentences to the query, from the sentence vectors indexing
    stored (None where none are); set only when ``embedding.sentence_vectors`` is on."""


def reorder(items: Sequence[ContextItem], scores: Sequence[float], k: int, key: str = "rerank") -> list[ContextItem]:
    """Items sorted by ``scores`` (ties keep the incoming order), cut to ``k``; each kept item records its
    score under ``key`` so the trace shows why it ranked."""
    order = sorted(range(len(items)), key=lambda i: (-scores[i], i))[:k]
    out = []
    for i in order:
        items[i].scores[key] = float(scores[i])
        out.append(items[i])
    return out
