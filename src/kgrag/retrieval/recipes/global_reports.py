"""``global``: map-reduce over community reports within a prompt-token budget (Microsoft GraphRAG's
global search, as feldt-hellstrom-2026 describes it); the pipeline owns its answer step."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.answer_settings import global_answer_settings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.steps.community import GlobalCandidates


def global_pipeline(name: str, config: KgragConfig) -> Pipeline:
    return Pipeline(
        name,
        "Map-reduce over community reports: rated points per batch, low ratings dropped, one reduce "
        f"call; at most {global_answer_settings(config).max_prompt_tokens} prompt tokens per query.",
        (GlobalCandidates(),),
        requires=frozenset({"communities"}),
        answer="global",
    )
