"""``rerank``: hybrid first stage, a pool of 50 reranked against the question (lundberg-2026 found the
reranker the single most useful component). The reranker is ``rerank.provider``."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import EMBEDDINGS, finish, hybrid_search
from kgrag.retrieval.steps.basic import Hydrate, TakeTop
from kgrag.retrieval.steps.rerank import Rerank


def rerank_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Dense + BM25 → RRF → top ``pool`` → rerank → k, within the context budget."""
    pool = config.retrieval.pool_for(name)
    return Pipeline(
        name,
        f"Hybrid search, top {pool} reranked by `{config.rerank.provider}` (lundberg-2026).",
        (
            *hybrid_search(name, config, keep=pool),
            TakeTop(limit=pool),
            Hydrate(),
            Rerank(),
            *finish(name, config),
        ),
        requires=EMBEDDINGS,
    )
