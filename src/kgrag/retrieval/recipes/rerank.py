"""``rerank``: hybrid first stage, a pool of 50 reranked against the question (lundberg-2026 found the
reranker the single most useful component). The reranker is ``rerank.provider``; with ``diversity`` set,
the k passages are chosen from the reranked pool by maximal marginal relevance
(:mod:`kgrag.retrieval.steps.diversity`)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipeline_settings import RerankSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import EMBEDDINGS, finish, hybrid_search
from kgrag.retrieval.steps.basic import Hydrate, Step, TakeTop
from kgrag.retrieval.steps.diversity import Diversify
from kgrag.retrieval.steps.rerank import Rerank


def rerank_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Dense + BM25 → RRF → top ``pool`` → rerank → k (by MMR with ``diversity``), within the context budget."""
    pool = config.retrieval.pool_for(name)
    penalty = config.retrieval.pipeline_settings(name, RerankSettings).diversity
    choose: tuple[Step, ...] = (Rerank(keep=pool), Diversify(penalty)) if penalty > 0 else (Rerank(),)
    return Pipeline(
        name,
        f"Hybrid search, top {pool} reranked by `{config.rerank.provider}` (lundberg-2026).",
        (*hybrid_search(name, config, keep=pool), TakeTop(limit=pool), Hydrate(), *choose, *finish(name, config)),
        requires=EMBEDDINGS,
    )
