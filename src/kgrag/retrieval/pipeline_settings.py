"""The settings models of the built-in pipelines that have knobs of their own: the one place their
``[retrieval.pipelines.<name>]`` keys and defaults are written. ``KINDS["pipeline"]`` names each model
beside its recipe; a recipe reads its table with ``config.retrieval.pipeline_settings(name, Model)``.

Every model extends :class:`~kgrag.config.retrieval.PipelineBaseSettings` (pool, RRF constant, context
budget, sentence share), which falls back to ``[retrieval]``. This module imports only pydantic and the
config, so validating a kgrag.toml never loads a search.
"""

from __future__ import annotations

from pydantic import Field

from kgrag.config.retrieval import PipelineBaseSettings


class GraphLocalSettings(PipelineBaseSettings):
    """LightRAG-style local search (``graph-local``, and the local part of ``graph-hybrid``, ``graph-mix``)."""

    top_entities: int = Field(10, ge=1, description="Entities kept.")
    max_relations: int = Field(20, ge=0, description="Relations added.")
    max_neighbours: int = Field(10, ge=0, description="1-hop neighbours added.")
    keyword_boost: float = Field(1.0, ge=0, description="Score added for an entity whose name the question types.")
    entity_pool: int = Field(50, ge=1, description="Entity vector candidates.")


class GraphGlobalSettings(PipelineBaseSettings):
    """LightRAG global search (``graph-global``)."""

    max_relations: int = Field(20, ge=1, description="Relations the high-level keywords select.")


class PprSettings(PipelineBaseSettings):
    """Personalized PageRank over the entity graph (``ppr``)."""

    damping: float = Field(0.5, gt=0, lt=1, description="PageRank damping factor (probability of following an edge).")


class PprPassagesSettings(PprSettings):
    """PageRank over entities and passages (``ppr-passages``, hipporag2)."""

    passage_weight: float = Field(
        0.8,
        ge=0,
        le=1,
        description="Share of PageRank's reset mass on the question's dense + BM25 passages, the rest on its "
        "entities (0.8 recalled the most of the shares tried, docs/results/design-measurements.md; the LLM-free "
        "graph's entity seeds are many generic noun phrases).",
    )


class PathsSettings(PipelineBaseSettings):
    """Multi-hop paths λ-fused with dense scores (``paths``, triple-layer-graphrag)."""

    fusion_lambda: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Weight of the dense score in λ fusion; unset: the `kgrag tune lambda` value, else 0.7.",
    )
    max_hops: int = Field(2, ge=1, le=4, description="Longest path in hops.")


class AutoSettings(PipelineBaseSettings):
    """The router (``auto``)."""

    routes: dict[str, str] = Field(
        default_factory=dict,
        description="Pipeline per route, keys `local`, `multi-hop`, `global` (defaults `rerank`, "
        "`graph-mix-rerank`, `global` when such a pipeline is registered, else the multi-hop one).",
    )


class DriftSettings(PipelineBaseSettings):
    """DRIFT search: a primer over community reports, follow-up questions answered by local search, one
    reduce call; every call is counted against ``max_prompt_tokens`` before it is sent."""

    max_prompt_tokens: int = Field(
        12000,
        ge=100,
        description="Prompt tokens one query may spend over all its calls (primer, follow-ups, reduce); a call "
        "that would cross it is not sent.",
    )
    depth: int = Field(
        2, ge=0, le=5, description="Rounds of follow-up questions answered by local search (0: primer only)."
    )
    breadth: int = Field(3, ge=1, le=10, description="Follow-up questions answered per round, best rated first.")
    follow_ups: int = Field(4, ge=0, le=10, description="Follow-up questions kept from each reply.")
    reports: int = Field(5, ge=1, le=50, description="Community reports the primer reads (most similar first).")
    local_pipeline: str = Field(
        "graph-local", min_length=1, description="Pipeline that answers a follow-up question's local search."
    )
    local_k: int = Field(5, ge=1, le=50, description="Items each local search returns.")
    local_tokens: int = Field(800, ge=50, description="Most context tokens one follow-up prompt carries.")
    reply_tokens: int = Field(400, ge=50, description="Most completion tokens of a primer or follow-up reply.")
    partial_tokens: int = Field(
        200, ge=20, description="Most tokens of one intermediate answer handed to the reduce call."
    )
    answer_tokens: int = Field(500, ge=50, description="Most completion tokens of the final answer.")


class GlobalSettings(PipelineBaseSettings):
    """Global search: map-reduce over community reports under one prompt budget; the pipeline plans the report
    batches and the `global` answer strategy spends them, both from this table."""

    max_prompt_tokens: int = Field(
        6000, ge=1000, description="Prompt tokens one query may spend over all its map and reduce calls."
    )
    batch_tokens: int = Field(1400, ge=300, description="Report tokens per map call (one batch of reports).")
    min_score: int = Field(
        20, ge=0, le=100, description="Map points rated below this (0–100) are dropped before reduce."
    )
    answer_tokens: int = Field(500, ge=50, description="Most tokens of the final answer.")
    report_spreads: float = Field(
        1.0,
        ge=0,
        description="Read only the reports that stand out for the query: a cosine at least this many robust "
        "deviations (1.4826 × the median absolute deviation) above the median cosine of the query against "
        "every report, so the cut follows each query's own cosines, not a fixed threshold; the best report is "
        "always read. On a corpus with many reports the budget usually binds first; on a small one "
        "a query reads the few reports that stand out instead of all of them (docs/results/prompt-size.md). "
        "0 = off: every report in similarity order, as many as `max_prompt_tokens` fits.",
    )
