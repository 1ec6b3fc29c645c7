"""``graph-local``: LightRAG-style local search over the knowledge graph (lundberg-2026).

Its search parameters come from ``[retrieval.pipelines.<name>]``; a key left unset keeps the search's
own default (:class:`~kgrag.retrieval.steps.graph_local.LocalSearchParams`), since ``[retrieval]`` has no
graph knobs to fall back to.
"""

from __future__ import annotations

from kgrag.config import KgragConfig, PipelineSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import finish
from kgrag.retrieval.steps.graph import GraphLocalSearch
from kgrag.retrieval.steps.graph_local import LocalSearchParams


def local_params(settings: PipelineSettings) -> LocalSearchParams:
    """The pipeline's table over the search defaults."""
    default = LocalSearchParams()
    return LocalSearchParams(
        top_entities=settings.top_entities if settings.top_entities is not None else default.top_entities,
        max_relations=settings.max_relations if settings.max_relations is not None else default.max_relations,
        max_neighbours=settings.max_neighbours if settings.max_neighbours is not None else default.max_neighbours,
        keyword_boost=settings.keyword_boost if settings.keyword_boost is not None else default.keyword_boost,
        candidate_pool=settings.entity_pool if settings.entity_pool is not None else default.candidate_pool,
    )


def graph_local_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Query → entities → relations/neighbours → chunks by provenance, plus the graph items."""
    return Pipeline(
        name,
        "LightRAG-style local search: query → entities → relations/neighbours → chunks by "
        "provenance count, plus the entity and relation items (lundberg-2026).",
        (GraphLocalSearch(local_params(config.retrieval.settings_for(name))), *finish(name, config)),
        requires=frozenset({"graph"}),
    )
