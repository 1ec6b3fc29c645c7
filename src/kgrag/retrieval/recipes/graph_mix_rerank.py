"""``graph-mix-rerank``: LightRAG mix with its passages reranked against the question (lundberg-2026)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.graph_mix import mix_search
from kgrag.retrieval.recipes.parts import EMBEDDINGS, GRAPH, finish
from kgrag.retrieval.steps.basic import Hydrate
from kgrag.retrieval.steps.rerank import Rerank


def graph_mix_rerank_pipeline(name: str, config: KgragConfig) -> Pipeline:
    return Pipeline(
        name,
        f"LightRAG mix, passages reranked by `{config.rerank.provider}` (lundberg-2026).",
        (*mix_search(name, config), Hydrate(), Rerank(), *finish(name, config)),
        requires=GRAPH | EMBEDDINGS,
    )
