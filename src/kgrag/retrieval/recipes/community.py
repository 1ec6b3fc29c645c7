"""``community``: the top-k community reports over all levels by embedding similarity
(feldt-hellstrom-2026), or over ``communities.search_levels``; one answer call, like dense search."""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.steps.community import CommunitySearch


def community_pipeline(name: str, config: KgragConfig) -> Pipeline:
    levels = tuple(config.communities.search_levels)
    return Pipeline(
        name,
        "Top-k community reports by embedding similarity over all levels (feldt-hellstrom-2026).",
        (CommunitySearch(levels),),
        requires=frozenset({"communities"}),
    )
