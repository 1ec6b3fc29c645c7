"""The models a query may call: the embedder, the LLM client and the recent query vectors.

The workspace provides its own embedder (bound to the database's recorded model) and LLM client (one
ledger and run id per workspace object); the ``build`` here serves a context made without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgrag.retrieval.query_context import QueryContext, QueryResource
from kgrag.retrieval.resources.caches import TextCache

if TYPE_CHECKING:
    import numpy as np

    from kgrag.models.embeddings import Embedder
    from kgrag.models.llm import LLMClient

QUERY_CACHE_SIZE = 2048
"""Query vectors kept (evaluation asks one question of many pipelines)."""


def _embedder(ctx: QueryContext) -> Embedder:
    from kgrag.models.embeddings import EMBEDDERS, create_embedder

    return create_embedder(ctx.config.embedding, ctx.registries.get(EMBEDDERS))


def _llm(ctx: QueryContext) -> LLMClient:
    from kgrag.models.llm import build_provider, create_llm_client
    from kgrag.models.llm.registry import LLM_PROVIDERS
    from kgrag.prompts.loader import PROMPT_SCHEMAS

    provider = build_provider(ctx.config.llm, ctx.registries.get(LLM_PROVIDERS))
    return create_llm_client(
        ctx.config.llm, ctx.store, provider=provider, prompt_schemas=ctx.registries.get(PROMPT_SCHEMAS)
    )


EMBEDDER: QueryResource[Embedder] = QueryResource("embedder", _embedder)
LLM: QueryResource[LLMClient] = QueryResource("llm", _llm)
QUERY_VECTORS: QueryResource[TextCache[np.ndarray]] = QueryResource(
    "query_vectors", lambda ctx: TextCache(QUERY_CACHE_SIZE)
)
