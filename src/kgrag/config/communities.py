"""The ``[communities]`` section of kgrag.toml: hierarchical communities, their reports, and the
``community`` search knobs (the ``global`` ones are in ``[retrieval.pipelines.global]``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import (
    EntryTables,
    Tables,
    declare_moves,
    known_registry,
    migration,
    move_keys,
    tables_field,
)

_LEIDENS = ("leiden", "graspologic")
FORMER_KEYS: dict[str, tuple[str, ...]] = {
    "max_cluster_size": tuple(f"builders.{b}.max_cluster_size" for b in _LEIDENS),
    "max_levels": tuple(f"builders.{b}.max_levels" for b in _LEIDENS),
    "seed": tuple(f"builders.{b}.seed" for b in (*_LEIDENS, "leiden-multires")),
    "resolution": tuple(f"builders.{b}.resolution" for b in _LEIDENS),
    "iterations": tuple(f"builders.{b}.iterations" for b in (*_LEIDENS, "leiden-multires")),
    "resolutions": ("builders.leiden-multires.resolutions",),
}
"""Flat ``[communities]`` keys of the Leiden builders, and the builder tables they are read as."""

declare_moves("communities", FORMER_KEYS)

GLOBAL_KEYS = ("max_prompt_tokens", "batch_tokens", "min_score", "answer_tokens")
"""``communities.global_<key>``, now ``retrieval.pipelines.global.<key>`` (moved by :class:`KgragConfig`,
since the table sits in another section)."""

for _key in GLOBAL_KEYS:
    migration(f"communities.global_{_key}", f"retrieval.pipelines.global.{_key}")


class CommunitiesConfig(Section):
    """Community detection (hierarchical Leiden), community reports and community-based search."""

    builder: str = Field(
        "leiden",
        description="Community builder: `leiden` (igraph's Leiden applied recursively to communities above "
        "its `max_cluster_size`), `graspologic` (graspologic-native's hierarchical Leiden, as Microsoft "
        "GraphRAG uses; optional package), `leiden-multires` (one level per entry of its `resolutions`, "
        "triple-layer-graphrag), `components` (connected components; a cheap baseline); each builder's knobs "
        "are in its `[communities.builders.<name>]` table. Plug-ins: entry points `kgrag.community_builders`.",
    )
    min_community_size: int = Field(
        5,
        ge=1,
        description="Communities with fewer entities get no report of their own (their entities still appear in "
        "their parent's report input); a graph full of two-node components would otherwise cost one call each "
        "(feldt-hellstrom-2026 §3.4.5). 5 rather than 3 cuts report prompt tokens markedly "
        "(docs/communities.md).",
    )
    reports: Literal["auto", "llm", "extractive"] = Field(
        "auto",
        description="How reports are written: `llm` with the configured LLM, `extractive` without (top entities "
        "by PageRank, strongest relations, most central supporting sentences), `auto` = llm when "
        "llm.provider is not `none`.",
    )
    report_input_tokens: int = Field(
        500, ge=200, description="Most tokens of entity/relation or child-report text one report prompt may carry."
    )
    report_max_tokens: int = Field(400, ge=50, description="Most tokens of one LLM report reply.")
    report_findings: int = Field(5, ge=1, le=20, description="Key findings per report.")
    search_levels: list[int] = Field(
        default_factory=list,
        description="`community` search: levels to search (empty: all levels, feldt-hellstrom-2026).",
    )
    builders: Annotated[Tables, EntryTables("community_builder", "communities.builders")] = tables_field(
        "community_builder",
        "One `[communities.builders.<name>]` table per community builder with settings (see *Entry settings*).",
    )

    @model_validator(mode="before")
    @classmethod
    def _former_keys(cls, data: Any) -> Any:
        return move_keys(data, "communities", FORMER_KEYS)

    @field_validator("builder")
    @classmethod
    def _known_builder(cls, value: str) -> str:
        return known_registry("community_builder").check(value, "communities.builder")
