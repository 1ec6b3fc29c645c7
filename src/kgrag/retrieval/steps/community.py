"""Retrieval steps over community reports: top-k by embedding similarity (``community``) and the
budget-sized candidate list of ``global``.

Both return ``community`` items whose text is the report and whose provenance (``chunk_ids``) is the
chunks its member entities come from, so evaluation and citations work as for any other item.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from pydantic import JsonValue

from kgrag.core.community_records import CommunityReport
from kgrag.core.context import ContextItem
from kgrag.documents import TokenCounter
from kgrag.prompts import Prompt, load_prompt
from kgrag.prompts.loader import PROMPT_SCHEMAS
from kgrag.retrieval.pipeline_settings import GlobalSettings
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.stored import COMMUNITIES
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.global_plan import MAP_PROMPT, REDUCE_PROMPT, plan_batches
from kgrag.retrieval.steps.report_relevance import relevant_count


def report_item(report: CommunityReport, score: float, stream: str) -> ContextItem:
    return ContextItem(
        kind="community",
        id=report.community_id,
        text=report.text,
        score=score,
        chunk_ids=list(report.chunk_ids),
        scores={stream: score},
        metadata={"level": report.level, "title": report.title, "rating": report.rating, "method": report.method},
    )


@dataclass(frozen=True)
class CommunitySearch:
    """The k reports most similar to the query over ``levels`` (empty: every level), as
    feldt-hellstrom-2026 retrieves top-k community summaries over all levels."""

    levels: tuple[int, ...] = ()
    name: str = "community_search"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        hits = env.get(COMMUNITIES).search(env.embed_query(state.query), state.k, self.levels)
        state.items = [report_item(report, score, "community") for report, score in hits]
        state.record(self.name, {"k": state.k, "levels": list(self.levels)}, len(state.items), started)


def _workspace_prompt(env: QueryContext, name: str) -> Prompt:
    """The prompt ``name`` as the workspace's LLM client loads it: its override directory first, its
    ``output_schema`` resolved in the workspace's ``prompt_schema`` registry."""
    return load_prompt(name, env.config.llm.prompts_dir, env.registries.get(PROMPT_SCHEMAS))


@dataclass(frozen=True)
class GlobalCandidates:
    """Reports by similarity to the query (only those that stand out for it when ``report_spreads`` is
    set, :func:`relevant_count`), exactly as many as the map calls of ``global`` can read within
    its prompt budget (:func:`plan_batches`), whatever ``k`` asks: the items are the context the answer
    gets, so a retrieval evaluation counts what the map calls read, and the LLM-free extractive answer
    picks its sentences from the same reports."""

    name: str = "global_candidates"
    pipeline: str = "global"
    """The pipeline whose ``[retrieval.pipelines.<name>]`` table holds the budget (:class:`GlobalSettings`)."""

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        config = env.config.communities
        index = env.get(COMMUNITIES)
        hits = index.search(env.embed_query(state.query), len(index), config.search_levels)
        counter = TokenCounter.for_encoding()
        map_prompt, reduce_prompt = (_workspace_prompt(env, name) for name in (MAP_PROMPT, REDUCE_PROMPT))
        budget = env.config.retrieval.pipeline_settings(self.pipeline, GlobalSettings)
        hits = hits[: relevant_count([score for _, score in hits], budget.report_spreads)]
        plan = plan_batches(state.query, [r.text for r, _ in hits], budget, counter.count, map_prompt, reduce_prompt)
        state.items = [report_item(report, score, "global") for report, score in hits[: plan.reports]]
        params: dict[str, JsonValue] = {
            "budget": budget.max_prompt_tokens,
            "batches": len(plan.batches),
            "reports": plan.reports,
        }
        if budget.report_spreads > 0:
            params["relevant"] = len(hits)
        state.record(self.name, params, len(state.items), started)
