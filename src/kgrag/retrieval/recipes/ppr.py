"""``ppr``: personalized PageRank from the question's entities, fused with dense and BM25 passages."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipeline_settings import PprSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import EMBEDDINGS, GRAPH, finish
from kgrag.retrieval.steps.basic import BM25Search, DenseSearch, FuseRRF, TakeTop
from kgrag.retrieval.steps.lightrag import AppendStreams
from kgrag.retrieval.steps.ppr import PersonalizedPageRank


def ppr_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Dense + BM25 + PPR passage streams fused by RRF; the top PageRank entities join as facts."""
    settings = config.retrieval.pipeline_settings(name, PprSettings)
    pool = config.retrieval.pool_for(name)
    return Pipeline(
        name,
        "Personalized PageRank seeded by the question's entities, passages fused with dense + BM25.",
        (
            DenseSearch(pool=pool),
            BM25Search(pool=pool),
            PersonalizedPageRank(pool=pool, damping=settings.damping),
            FuseRRF(("dense", "bm25", "ppr"), k=config.retrieval.rrf_k_for(name), keep="k"),  # fuse only what is kept
            TakeTop(),
            AppendStreams(("ppr_facts",)),
            *finish(name, config),
        ),
        requires=GRAPH | EMBEDDINGS,
    )
