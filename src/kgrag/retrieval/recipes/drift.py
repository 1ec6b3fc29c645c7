"""``drift``: DRIFT search (Microsoft GraphRAG's community-primed local search) under a hard prompt-token
budget: a primer over community reports, follow-up questions answered by local search, one reduce call.

Its knobs are :class:`~kgrag.retrieval.drift_settings.DriftSettings`, read from
``[retrieval.pipelines.<name>.options]``. This recipe is the retrieval half; the reduce answer is added
where generation lives (:func:`kgrag.generation.drift_answer.drift_pipeline`, the registered factory).
"""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.core.errors import ConfigError
from kgrag.retrieval.drift_search import DriftSearch
from kgrag.retrieval.drift_settings import drift_settings
from kgrag.retrieval.pipelines import Pipeline


def drift_search_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """The DRIFT search step with ``name``'s settings; needs community reports (and so a graph)."""
    where = f"retrieval.pipelines.{name}.options"
    settings = drift_settings(config.retrieval.settings_for(name).options, where)
    if settings.local_pipeline in (name, "auto"):
        raise ConfigError(
            f"{where}.local_pipeline: {settings.local_pipeline!r} cannot answer the follow-ups of {name!r}; "
            "name a local pipeline such as graph-local"
        )
    return Pipeline(
        name,
        f"DRIFT: primer over {settings.reports} community reports, up to {settings.depth} rounds of "
        f"{settings.breadth} follow-ups answered by {settings.local_pipeline}, one reduce call; at most "
        f"{settings.max_prompt_tokens} prompt tokens per query.",
        (DriftSearch(settings),),
        requires=frozenset({"communities", "graph"}),
    )
