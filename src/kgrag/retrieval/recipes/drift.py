"""``drift``: DRIFT search (Microsoft GraphRAG's community-primed local search) under a hard prompt-token
budget: a primer over community reports, follow-up questions answered by local search, one reduce call.

Its knobs are :class:`~kgrag.retrieval.pipeline_settings.DriftSettings` (``[retrieval.pipelines.<name>]``).
This recipe is the search (:mod:`kgrag.retrieval.steps.drift`); it names its answer, the reduce call over
the intermediate answers (``KINDS["answer_strategy"]["drift"]``, :mod:`kgrag.generation.drift_answer`).
"""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.core.errors import ConfigError
from kgrag.retrieval.pipeline_settings import DriftSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.steps.drift import DriftSearch


def drift_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """The DRIFT search step with ``name``'s settings; needs community reports (and so a graph)."""
    settings = config.retrieval.pipeline_settings(name, DriftSettings)
    if settings.local_pipeline in (name, "auto"):
        raise ConfigError(
            f"retrieval.pipelines.{name}.local_pipeline: {settings.local_pipeline!r} cannot answer the "
            f"follow-ups of {name!r}; name a local pipeline such as graph-local"
        )
    return Pipeline(
        name,
        f"DRIFT: primer over {settings.reports} community reports, up to {settings.depth} rounds of "
        f"{settings.breadth} follow-ups answered by {settings.local_pipeline}, one reduce call; at most "
        f"{settings.max_prompt_tokens} prompt tokens per query.",
        (DriftSearch(settings),),
        requires=frozenset({"communities", "graph"}),
        answer="drift",
    )
