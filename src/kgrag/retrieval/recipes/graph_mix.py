"""``graph-mix``: LightRAG mix mode: local + global graph search and dense passages, round-robin
(lundberg-2026)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.graph_local import local_params
from kgrag.retrieval.recipes.parts import EMBEDDINGS, GRAPH, finish
from kgrag.retrieval.steps.basic import DenseSearch, Step
from kgrag.retrieval.steps.graph import GraphLocalSearch
from kgrag.retrieval.steps.lightrag import GraphGlobalSearch, RoundRobin
from kgrag.retrieval.steps.query import ExtractKeywords

MIX_CHUNKS = ("dense", "graph_local", "graph_global")
MIX_FACTS = ("graph_local_facts", "graph_global_facts")


def mix_search(name: str, config: KgragConfig) -> tuple[Step, ...]:
    """The mix first stage, shared with ``graph-mix-rerank``."""
    return (
        ExtractKeywords(),
        GraphLocalSearch(local_params(config, name)),
        GraphGlobalSearch(),
        DenseSearch(pool=config.retrieval.pool_for(name)),
        RoundRobin(MIX_CHUNKS, MIX_FACTS),
    )


def graph_mix_pipeline(name: str, config: KgragConfig) -> Pipeline:
    return Pipeline(
        name,
        "LightRAG mix: dense passages + local and global graph search, round-robin (lundberg-2026).",
        (*mix_search(name, config), *finish(name, config)),
        requires=GRAPH | EMBEDDINGS,
    )
