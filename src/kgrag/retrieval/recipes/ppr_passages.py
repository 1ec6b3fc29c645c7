"""``ppr-passages``: PageRank over entities and passages, seeded by the question's entities and its dense +
BM25 passages, passages ranked by their PageRank mass (hipporag2)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipeline_settings import PprPassagesSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import EMBEDDINGS, GRAPH, finish
from kgrag.retrieval.steps.basic import BM25Search, DenseSearch, TakeTop, UseStream
from kgrag.retrieval.steps.ppr import PassagePageRank


def ppr_passages_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Dense + BM25 pools → PPR over the passage graph (entity seeds, RRF-fused passage seeds) → k passages."""
    settings = config.retrieval.pipeline_settings(name, PprPassagesSettings)
    pool = config.retrieval.pool_for(name)
    return Pipeline(
        name,
        "HippoRAG 2 style PPR (igraph) over entities and passages, seeded by the question's entities and its "
        "dense + BM25 passages; passages ranked by PageRank mass (hipporag2).",
        (
            DenseSearch(pool=pool),
            BM25Search(pool=pool),
            PassagePageRank(
                pool=pool,
                damping=settings.damping,
                passage_weight=settings.passage_weight,
                seed_streams=("dense", "bm25"),
                rrf_k=config.retrieval.rrf_k_for(name),
            ),
            UseStream("ppr_passages"),
            TakeTop(),
            *finish(name, config),
        ),
        requires=GRAPH | EMBEDDINGS,
    )
