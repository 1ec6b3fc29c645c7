"""``graph-local``: LightRAG-style local search over the knowledge graph (lundberg-2026).

Its search parameters come from ``[retrieval.pipelines.<name>]``
(:class:`~kgrag.retrieval.pipeline_settings.GraphLocalSettings`, where their defaults are written).
"""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipeline_settings import GraphLocalSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import finish
from kgrag.retrieval.steps.graph import GraphLocalSearch
from kgrag.retrieval.steps.graph_local import LocalSearchParams


def local_params(config: KgragConfig, name: str) -> LocalSearchParams:
    """The search parameters of ``name``'s table."""
    settings = config.retrieval.pipeline_settings(name, GraphLocalSettings)
    return LocalSearchParams(
        top_entities=settings.top_entities,
        max_relations=settings.max_relations,
        max_neighbours=settings.max_neighbours,
        keyword_boost=settings.keyword_boost,
        candidate_pool=settings.entity_pool,
    )


def graph_local_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Query → entities → relations/neighbours → chunks by provenance, plus the graph items."""
    return Pipeline(
        name,
        "LightRAG-style local search: query → entities → relations/neighbours → chunks by "
        "provenance count, plus the entity and relation items (lundberg-2026).",
        (GraphLocalSearch(local_params(config, name)), *finish(name, config)),
        requires=frozenset({"graph"}),
    )
