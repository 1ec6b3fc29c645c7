"""``auto``: route each question to a local, multi-hop or global pipeline (triple-layer-graphrag)."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipeline_settings import AutoSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.steps.router import DEFAULT_ROUTES, Route


def auto_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """The router step runs the chosen pipeline; its decision and reason are the first trace step."""
    routes = {**DEFAULT_ROUTES, **config.retrieval.pipeline_settings(name, AutoSettings).routes}
    return Pipeline(
        name,
        f"Router: local → {routes['local']}, multi-hop → {routes['multi-hop']}, global → {routes['global']} "
        "when registered (LLM decision when configured, else heuristics; a policy stored by `kgrag tune router` "
        "replaces both).",
        (Route(routes),),
        requires=frozenset({"embeddings"}),
    )
