"""``combined``: QE + HyDE from one LLM call, 4 hybrid + 1 dense searches pooled, reranked against the
original question (lundberg-2026)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import EMBEDDINGS, finish
from kgrag.retrieval.steps.basic import BM25Search, DenseSearch, FuseRRF, Hydrate, TakeTop
from kgrag.retrieval.steps.query import ExpandAndHypothesize
from kgrag.retrieval.steps.rerank import Rerank


def combined_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Question + 3 rewrites through dense and BM25, the HyDE passage through dense; RRF pool → rerank."""
    pool = config.retrieval.pool_for(name)
    return Pipeline(
        name,
        "QE + HyDE in one call: 4 hybrid + 1 dense searches pooled, reranked against the question (lundberg-2026).",
        (
            ExpandAndHypothesize(pool=pool),
            DenseSearch(pool=pool),
            BM25Search(pool=pool),
            DenseSearch(pool=pool, stream="hyde", texts="hypothetical", name="hyde_search"),
            FuseRRF(("dense", "bm25", "hyde"), k=config.retrieval.rrf_k_for(name), keep=pool),
            TakeTop(limit=pool),
            Hydrate(),
            Rerank(),
            *finish(name, config),
        ),
        requires=EMBEDDINGS,
    )
