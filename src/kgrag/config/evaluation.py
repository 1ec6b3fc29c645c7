"""The ``[evaluation]`` section of kgrag.toml."""

from __future__ import annotations

from pydantic import Field

from kgrag.config.base import Section


class EvaluationConfig(Section):
    """Deterministic evaluation settings."""

    evidence_overlap: float = Field(
        0.7,
        gt=0,
        le=1,
        description="An evidence sentence counts as recalled when this share of its content tokens "
        "(lower-cased, stop words removed) occurs in one retrieved item.",
    )
    accuracy_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="α in answer accuracy = α·statement F1 + (1 − α)·semantic similarity "
        "(0.5, feldt-hellstrom-2026 eq. 3.2).",
    )
    relevance_repeats: int = Field(
        2,
        ge=1,
        description="LLM-judged context relevance grades each item this many times and averages "
        "(2, feldt-hellstrom-2026).",
    )
    judge_models: list[str] = Field(
        default_factory=list,
        description="Models of the judge panel, called through the configured LLM provider; empty = the "
        "`llm.model` alone. The panel score is their mean (feldt-hellstrom-2026 used three).",
    )
    judge_temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature of every judge call.")
    runs: int = Field(
        3,
        ge=1,
        description="Default repeats of `kgrag eval run`; reports show mean ± std over runs (lundberg-2026 used 5).",
    )
    pairwise_repeats: int = Field(
        2,
        ge=1,
        description="N: the same pairwise prompt is sent N times per order and averaged (2, zeng-unbiased-eval).",
    )
    pairwise_trials: int = Field(
        25,
        ge=1,
        description="M: whole pairwise evaluations over all questions; win rates are reported over "
        "trials (25, zeng-unbiased-eval).",
    )
    length_tolerance_words: int = Field(
        10, ge=0, description="Two answers count as length-aligned within this many words (10, zeng-unbiased-eval)."
    )
    length_attempts: int = Field(
        2, ge=1, description="Rewrites of the shorter answer with a target length before the forced pad step."
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the intervals in pairwise reports.")
    bootstrap_samples: int = Field(
        2000, ge=100, description="Resamples of questions for pairwise confidence intervals (cluster bootstrap)."
    )
    qgen_min_subgraph_nodes: int = Field(
        50,
        ge=2,
        description="Subgraph questions need a random walk reaching this many distinct entities; "
        "smaller walks are resampled (50 non-repeating hops, zeng-unbiased-eval).",
    )
    qgen_dedup_threshold: float = Field(
        0.8,
        gt=0,
        le=1,
        description="Generated questions whose content-word Jaccard similarity reaches this "
        "are duplicates; the later one is dropped.",
    )
    qgen_source_tokens: int = Field(
        6000,
        ge=200,
        description="Token budget of what an LLM question generator is shown: entity names first (a whole "
        "subgraph walk), then whole passages by how many walked entities they hold, then relations and "
        "descriptions, as long as they fit; what is left out is counted in the summary.",
    )
    qgen_judge_model: str = Field(
        "",
        description="Model that checks generated questions against their cited passages (same provider); "
        "empty = the generating model.",
    )
