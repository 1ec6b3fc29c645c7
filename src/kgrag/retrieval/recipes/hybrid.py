"""``hybrid``: dense and BM25 candidates fused by reciprocal rank fusion (lundberg-2026)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import finish, hybrid_search
from kgrag.retrieval.steps.basic import TakeTop


def hybrid_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Both searches fetch ``pool`` candidates; RRF with constant ``rrf_k`` ranks their union."""
    rrf_k = config.retrieval.rrf_k_for(name)
    return Pipeline(
        name,
        f"Dense + BM25 fused by reciprocal rank fusion (k={rrf_k}, lundberg-2026).",
        (*hybrid_search(name, config, keep="k"), TakeTop(), *finish(name, config)),
        requires=frozenset({"embeddings"}),
    )
