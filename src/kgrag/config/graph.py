"""The ``[graph]`` section of kgrag.toml."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import EntryTables, Tables, declare_moves, known_registry, move_keys, tables_field

RESOLVED_EXTRACTORS = ("auto", "none")  # resolved in kgrag.graph.extract.choose, not registry entries

FORMER_KEYS: dict[str, tuple[str, ...]] = {
    **{key: (f"extractors.nlp.{key}",) for key in ("spacy_model", "spacy_processes", "spacy_torch", "noun_phrases")},
    **{key: (f"extractors.llm.{key}",) for key in ("unit_tokens", "grounding", "grounding_similarity", "gleaning")},
}
"""Flat ``[graph]`` keys of one extractor each, and the extractor table they are read as."""

declare_moves("graph", FORMER_KEYS)


class GraphConfig(Section):
    """Knowledge-graph construction (extraction, merging, summaries)."""

    extractor: str = Field(
        "auto",
        description="`llm` extracts with the configured LLM (LightRAG style, as compared in lundberg-2026); "
        "`nlp` uses spaCy (no LLM); `auto` picks `llm` when llm.provider is not `none`, else `nlp`; "
        "`none` builds no graph. Installed plug-ins add extractors (entry points `kgrag.extractors`).",
    )
    entity_types: list[str] = Field(
        default_factory=lambda: [
            "person",
            "organization",
            "team",
            "product",
            "technology",
            "location",
            "event",
            "concept",
            "document",
            "metric",
        ],
        description="Entity types the LLM extractor may assign; anything else becomes `concept`.",
    )
    language: str = Field("English", description="Language the LLM writes descriptions in.")
    max_description_tokens: int = Field(
        300,
        ge=20,
        description="Merged entity/relation descriptions longer than this are summarised "
        "(by the LLM, or extractively without one).",
    )

    summarizer: str = Field(
        "auto",
        description="Description summariser, by registry name: `llm` (the configured LLM, the extractive "
        "summary as its fallback), `extractive` (no LLM), or a plug-in (entry points `kgrag.summarizers`); "
        "`auto` = `llm` when an LLM is configured, else `extractive`.",
    )

    extractors: Annotated[Tables, EntryTables("extractor", "graph.extractors")] = tables_field(
        "extractor",
        "One `[graph.extractors.<name>]` table per extractor with settings of its own (see *Entry settings*).",
    )
    summarizers: Annotated[Tables, EntryTables("summarizer", "graph.summarizers")] = tables_field(
        "summarizer",
        "One `[graph.summarizers.<name>]` table per description summariser with settings of its own (plug-ins).",
    )

    @model_validator(mode="before")
    @classmethod
    def _former_keys(cls, data: Any) -> Any:
        return move_keys(data, "graph", FORMER_KEYS)

    @field_validator("summarizer")
    @classmethod
    def _known_summarizer(cls, value: str) -> str:
        """``auto`` or a registered summariser, checked at load time naming the field."""
        return value if value == "auto" else known_registry("summarizer").check(value, "graph.summarizer")

    @field_validator("extractor")
    @classmethod
    def _known_extractor(cls, value: str) -> str:
        """``auto``/``none`` or a registered extractor, checked at load time naming the field."""
        if value in RESOLVED_EXTRACTORS:
            return value
        return known_registry("extractor").check(value, "graph.extractor")
