"""Model-free rerankers: the no-op baseline and query-word coverage.

``lexical`` (also registered as ``word-overlap``, its older name in tests) orders a pool by the share of the
question's content words each candidate holds, ties keeping the first-stage order. It recalls more evidence
than no reranking and than the embedder-based ``sentence`` reranker (measured in ``docs/results/medical-
retrieval-quality.md``): the first stage already ranks by meaning; what it under-weights is whether a passage
names *all* of what the question asks about. The offline default ``fused``
(:mod:`kgrag.models.rerankers.fused`) starts from this score and adds the first stage's signals back
(``docs/results/medical-retrieval-quality.md``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgrag.core.context import ContextItem
from kgrag.core.no_settings import NoSettings
from kgrag.documents.words import content_word_finder, content_words
from kgrag.models.rerankers.base import RerankResources, reorder


@dataclass(frozen=True)
class KeepOrderReranker:
    """Keeps the first-stage order: what "no reranking" means when a reranker is measured."""

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        return list(items[:k])


@dataclass(frozen=True)
class WordOverlapReranker:
    """Orders by the share of the query's content words an item contains (ties keep the order)."""

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        wanted = content_words(query)
        find = content_word_finder(wanted)
        scores = [len(find(item.text)) / max(1, len(wanted)) for item in items]
        return reorder(items, scores, k)


def keep_order_reranker(settings: NoSettings, resources: RerankResources) -> KeepOrderReranker:
    return KeepOrderReranker()


def word_overlap_reranker(settings: NoSettings, resources: RerankResources) -> WordOverlapReranker:
    return WordOverlapReranker()
