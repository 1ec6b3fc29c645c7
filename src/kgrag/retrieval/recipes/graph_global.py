"""``graph-global``: LightRAG global mode: high-level keywords → relations → their passages (lundberg-2026)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipeline_settings import GraphGlobalSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import GRAPH, finish
from kgrag.retrieval.steps.lightrag import GraphGlobalSearch, RoundRobin
from kgrag.retrieval.steps.query import ExtractKeywords


def graph_global_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Keywords (LLM, else NLP) → relation vectors → relations, ends and chunks by provenance count."""
    top = config.retrieval.pipeline_settings(name, GraphGlobalSettings).max_relations
    return Pipeline(
        name,
        "LightRAG global: high-level keywords → relations → passages by provenance count (lundberg-2026).",
        (
            ExtractKeywords(),
            GraphGlobalSearch(top_relations=top),
            RoundRobin(("graph_global",), ("graph_global_facts",)),
            *finish(name, config),
        ),
        requires=GRAPH,
    )
