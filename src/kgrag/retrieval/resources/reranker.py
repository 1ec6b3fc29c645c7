"""The reranker a ``Rerank`` step uses: the one ``rerank.provider`` names, built on first use from the
query context itself (its models, stored-vector cosines and, with sentence vectors stored,
best-sentence cosines), so the wiring runs one way: context → resources → reranker."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgrag.core.context import ContextItem
from kgrag.retrieval.query_context import QueryContext, QueryResource
from kgrag.retrieval.resources.models import EMBEDDER, LLM
from kgrag.retrieval.resources.sentences import SENTENCE_VECTORS_ON

if TYPE_CHECKING:
    from kgrag.models.rerankers import RerankResources
    from kgrag.retrieval.rerank import Reranker


def rerank_resources(ctx: QueryContext) -> RerankResources:
    """What a reranker may use: the models as factories, stored-vector cosines and, with
    ``embedding.sentence_vectors`` on, best-sentence cosines (all read through ``ctx``)."""
    from kgrag.models.rerankers import RerankResources
    from kgrag.retrieval.steps.budget import similarities
    from kgrag.retrieval.steps.sentence_scores import best_sentence_similarities

    def passage_cosines(query: str, items: Sequence[ContextItem]) -> list[float | None]:
        return similarities(items, ctx, query)

    def sentence_cosines(query: str, items: Sequence[ContextItem]) -> list[float | None]:
        return best_sentence_similarities(items, ctx, query)

    sentences = sentence_cosines if ctx.get(SENTENCE_VECTORS_ON) else None
    return RerankResources(lambda: ctx.get(EMBEDDER), lambda: ctx.get(LLM), passage_cosines, sentences)


def _configured(ctx: QueryContext) -> Reranker:
    from kgrag.retrieval.rerank import RERANKERS, create_reranker

    return create_reranker(ctx.config.rerank, rerank_resources(ctx), ctx.registries.get(RERANKERS))


RERANKER: QueryResource[Reranker] = QueryResource("reranker", _configured)
"""The configured reranker (an explicit one given to the context replaces it)."""
