"""``qe``: query expansion, three rewrites searched with the question (lundberg-2026)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import EMBEDDINGS, finish, hybrid_search
from kgrag.retrieval.steps.basic import TakeTop
from kgrag.retrieval.steps.query import ExpandQuery


def qe_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Rewrites (LLM, else pseudo-relevance feedback) → hybrid over all queries → k."""
    expand = ExpandQuery(pool=config.retrieval.pool_for(name))  # the question's search is the BM25 step's
    return Pipeline(
        name,
        "Query expansion: 3 rewrites (LLM; LLM-free: pseudo-relevance feedback) searched by hybrid (lundberg-2026).",
        (expand, *hybrid_search(name, config, keep="k"), TakeTop(), *finish(name, config)),
        requires=EMBEDDINGS,
    )
