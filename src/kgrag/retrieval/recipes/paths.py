"""``paths``: multi-hop paths with explanations, λ-fused with dense scores (triple-layer-graphrag)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipeline_settings import PathsSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import EMBEDDINGS, GRAPH, finish
from kgrag.retrieval.steps.basic import DenseSearch, TakeTop
from kgrag.retrieval.steps.lightrag import AppendStreams
from kgrag.retrieval.steps.paths import FuseLambda, PathSearch


def paths_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Dense pool + path scores → λ fusion → k passages, the best paths as explained facts."""
    settings = config.retrieval.pipeline_settings(name, PathsSettings)
    return Pipeline(
        name,
        "Multi-hop paths (Π weight × Π importance × decay^hops) with explanations, λ-fused with dense "
        "(λ from config, `kgrag tune`, or 0.7; triple-layer-graphrag).",
        (
            DenseSearch(pool=config.retrieval.pool_for(name)),
            PathSearch(max_hops=settings.max_hops),
            FuseLambda(settings.fusion_lambda, pipeline=name),
            TakeTop(),
            AppendStreams(("path_facts",)),
            *finish(name, config),
        ),
        requires=GRAPH | EMBEDDINGS,
    )
