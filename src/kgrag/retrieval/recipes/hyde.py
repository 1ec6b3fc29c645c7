"""``hyde``: search with the embedding of a hypothetical answering passage (lundberg-2026)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import EMBEDDINGS, finish
from kgrag.retrieval.steps.basic import DenseSearch, FuseRRF, TakeTop
from kgrag.retrieval.steps.query import Hypothesize


def hyde_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """HyDE passage (LLM; LLM-free: the best BM25 passage) → dense search, fused with the question's own
    dense search so a wrong hypothesis cannot hide the direct matches."""
    pool = config.retrieval.pool_for(name)
    return Pipeline(
        name,
        "HyDE: dense search with a hypothetical answer passage, fused with the question's (lundberg-2026).",
        (
            Hypothesize(),
            DenseSearch(pool=pool, stream="hyde", texts="hypothetical", name="hyde_search"),
            DenseSearch(pool=pool),
            FuseRRF(("hyde", "dense"), k=config.retrieval.rrf_k_for(name), keep="k"),
            TakeTop(),
            *finish(name, config),
        ),
        requires=EMBEDDINGS,
    )
