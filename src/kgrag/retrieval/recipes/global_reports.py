"""``global``: map-reduce over community reports within a prompt-token budget (Microsoft GraphRAG's
global search, as feldt-hellstrom-2026 describes it); the pipeline owns its answer step."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipeline_settings import GlobalSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.steps.community import GlobalCandidates


def global_pipeline(name: str, config: KgragConfig) -> Pipeline:
    settings = config.retrieval.pipeline_settings(name, GlobalSettings)
    return Pipeline(
        name,
        "Map-reduce over community reports: rated points per batch, low ratings dropped, one reduce "
        f"call; at most {settings.max_prompt_tokens} prompt tokens per query.",
        (GlobalCandidates(pipeline=name),),
        requires=frozenset({"communities"}),
        answer="global",
    )
