"""``graph-hybrid``: LightRAG hybrid mode: local and global results merged round-robin (lundberg-2026)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.graph_local import local_params
from kgrag.retrieval.recipes.parts import GRAPH, finish
from kgrag.retrieval.steps.graph import GraphLocalSearch
from kgrag.retrieval.steps.lightrag import GraphGlobalSearch, RoundRobin
from kgrag.retrieval.steps.query import ExtractKeywords


def graph_hybrid_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """Local (entities) and global (relations) searches, passages and facts interleaved."""
    return Pipeline(
        name,
        "LightRAG hybrid: local + global graph search merged round-robin (lundberg-2026).",
        (
            ExtractKeywords(),
            GraphLocalSearch(local_params(config, name)),
            GraphGlobalSearch(),
            RoundRobin(("graph_local", "graph_global"), ("graph_local_facts", "graph_global_facts")),
            *finish(name, config),
        ),
        requires=GRAPH,
    )
