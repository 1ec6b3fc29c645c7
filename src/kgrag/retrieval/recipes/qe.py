"""``qe``: query expansion, three rewrites searched with the question (lundberg-2026)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.query_steps import ExpandQuery
from kgrag.retrieval.recipe_parts import EMBEDDINGS, finish, hybrid_search
from kgrag.retrieval.steps import TakeTop


def qe_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Rewrites (LLM, else pseudo-relevance feedback) → hybrid over all queries → k."""
    return Pipeline(
        name,
        "Query expansion: 3 rewrites (LLM; LLM-free: pseudo-relevance feedback) searched by hybrid (lundberg-2026).",
        (ExpandQuery(), *hybrid_search(name, config), TakeTop(), *finish(name, config)),
        requires=EMBEDDINGS,
    )
