"""Model-free rerankers: the no-op baseline and a deterministic fake for tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgrag.config.rerank import RerankConfig
from kgrag.core.context import ContextItem
from kgrag.documents.words import content_words
from kgrag.models.rerankers.base import RerankResources, reorder


@dataclass(frozen=True)
class KeepOrderReranker:
    """Keeps the first-stage order: what "no reranking" means when a reranker is measured."""

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        return list(items[:k])


@dataclass(frozen=True)
class WordOverlapReranker:
    """Fake: orders by the share of the query's content words an item contains (ties keep the order)."""

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        wanted = content_words(query)
        scores = [len(wanted & content_words(item.text)) / max(1, len(wanted)) for item in items]
        return reorder(items, scores, k)


def keep_order_reranker(config: RerankConfig, resources: RerankResources) -> KeepOrderReranker:
    return KeepOrderReranker()


def word_overlap_reranker(config: RerankConfig, resources: RerankResources) -> WordOverlapReranker:
    return WordOverlapReranker()
