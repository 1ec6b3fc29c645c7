"""``dense``: exact cosine search over the chunk embeddings."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import finish
from kgrag.retrieval.steps.basic import DenseSearch, TakeTop, UseStream


def dense_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Embed the query, take the ``pool`` nearest chunks, keep the top k."""
    pool = config.retrieval.pool_for(name)
    return Pipeline(
        name,
        "Exact cosine search over chunk embeddings.",
        (DenseSearch(pool=pool), UseStream("dense"), TakeTop(), *finish(name, config)),
        requires=frozenset({"embeddings"}),
    )
