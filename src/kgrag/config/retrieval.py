"""The ``[retrieval]`` section of kgrag.toml, with one optional ``[retrieval.pipelines.<name>]`` table per
pipeline, validated against the settings model that pipeline's registry entry declares."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, SerializeAsAny, field_serializer, field_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import (
    EntryTables,
    Tables,
    check_tables,
    deprecated,
    dump_tables,
    ignored,
    known_registry,
    migration,
    tables_field,
)
from kgrag.core.registry import settings_of

S = TypeVar("S", bound=BaseModel)


class PipelineBaseSettings(BaseModel):
    """The knobs every pipeline has, read by the shared search and finishing steps; an unset one falls back
    to the ``[retrieval]`` knob of the same meaning. A pipeline's own settings model extends this one."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    pool: int | None = Field(None, ge=1, description="Candidates each search step fetches (retrieval.candidate_pool).")
    rrf_k: int | None = Field(None, ge=1, description="Reciprocal-rank-fusion constant (retrieval.rrf_k).")
    context_tokens: int | None = Field(
        None, ge=16, description="Context budget of this pipeline (retrieval.context_tokens)."
    )
    dense_sentence_share: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Its dense searches' share of the best-sentence score (retrieval.dense_sentence_share).",
    )


_FORMER_KEYS = frozenset(
    {
        "top_entities",
        "max_relations",
        "max_neighbours",
        "keyword_boost",
        "entity_pool",
        "fusion_lambda",
        "max_hops",
        "damping",
        "passage_weight",
        "routes",
    }
)
"""Shared pipeline keys of the former layout: accepted in every ``[retrieval.pipelines.<name>]`` table and
dropped with a note where that pipeline does not read them."""

migration("retrieval.pipelines.<name>.options.<key>", "retrieval.pipelines.<name>.<key>")
migration(
    "a `[retrieval.pipelines.<name>]` key only another pipeline reads (e.g. `damping` under `hybrid`)",
    "none: it was never read, so it is ignored with a note; delete it",
)


def _migrate_pipeline_table(name: str, table: Any) -> Any:
    """Lift ``options`` into the table; drop former shared keys the pipeline never read."""
    if not isinstance(table, dict):
        return table
    table = dict(table)
    options = table.pop("options", None)
    if isinstance(options, dict):
        for key, value in options.items():
            deprecated(f"retrieval.pipelines.{name}.options.{key}", f"retrieval.pipelines.{name}.{key}")
            table.setdefault(key, value)
    registry = known_registry("pipeline")
    if name in registry and (model := registry.settings_model(name)) is not None:
        for key in sorted(_FORMER_KEYS & set(table) - set(model.model_fields)):
            del table[key]
            ignored(f"retrieval.pipelines.{name}.{key}", f"pipeline {name!r} has no such setting and never read it")
    return table


class RetrievalConfig(Section):
    """Defaults for query-time retrieval."""

    default_pipeline: str = Field("hybrid", description="Pipeline used when a query names none.")
    k: int = Field(5, ge=1, description="Context items returned per query (k = 5 in lundberg-2026).")
    candidate_pool: int = Field(
        50, ge=1, description="Candidates each search step fetches before fusion (pool of 50 in lundberg-2026)."
    )
    rrf_k: int = Field(60, ge=1, description="Reciprocal-rank-fusion constant (k = 60, lundberg-2026).")
    context_tokens: int = Field(
        1000,
        ge=16,
        description="Context budget of every pipeline, in tokens: the items a pipeline returns (passages, "
        "entities, relations, paths) are chosen to fit it, so pipelines are compared at equal context. The "
        "default is about what k = 5 chunks of the default size cost; a passage may exceed a budget only "
        "when it is the first item.",
    )
    excerpts: bool = Field(
        True,
        description="Fill the room whole items leave in the context budget with the sentences of the next "
        "passages that name the most query words (one item per passage, labelled with its id). With large "
        "chunks, where only a few whole passages fit, it raises Fact Retrieval recall at the same budget "
        "(docs/results/design-measurements.md); with chunks small enough that k fit, there is no room and nothing "
        "changes.",
    )
    dense_sentence_share: float = Field(
        0.5,
        ge=0,
        le=1,
        description="When the index holds sentence vectors (`embedding.sentence_vectors`), every dense search "
        "ranks a chunk by (1 − share) × its own cosine + share × the mean cosine of its two best sentences, "
        "so text past the embedder's window counts; 0.5 recalled as much as any share tried for `dense` "
        "and `hybrid` (docs/results/design-measurements.md). 0 = chunk cosine only.",
    )
    pipelines: dict[str, SerializeAsAny[BaseModel]] = Field(
        default_factory=dict,
        description="Per-pipeline settings, one `[retrieval.pipelines.<name>]` table each, e.g. "
        "`[retrieval.pipelines.hybrid]` `rrf_k = 30`; each table is validated against the settings model "
        "its pipeline declares (listed below under *Entry settings*). Every pipeline takes `pool`, `rrf_k`, "
        "`context_tokens` and `dense_sentence_share` (unset: the knobs above). The name must be a built-in "
        "or installed plug-in pipeline (see `kgrag pipelines`).",
        json_schema_extra={"entry_kind": "pipeline"},
    )

    resources: Annotated[Tables, EntryTables("query_resource", "retrieval.resources")] = tables_field(
        "query_resource",
        "One `[retrieval.resources.<name>]` table per query resource with settings of its own (plug-ins).",
    )
    answer: Annotated[Tables, EntryTables("answer_strategy", "retrieval.answer")] = tables_field(
        "answer_strategy",
        "One `[retrieval.answer.<name>]` table per answer strategy with settings of its own (see *Entry settings*).",
    )

    @field_validator("pipelines", mode="before")
    @classmethod
    def _pipeline_tables(cls, value: Any) -> dict[str, BaseModel]:
        """A table for a pipeline nobody registered is almost always a typo, so it fails at load time, as
        does a key of the wrong type (``retrieval.pipelines.<name>.<key>: expected int``). Installed
        plug-ins count; pipelines registered in code on one workspace take their settings in code."""
        if isinstance(value, dict):
            value = {name: _migrate_pipeline_table(name, table) for name, table in value.items()}
        return check_tables("pipeline", value, "retrieval.pipelines")

    @field_serializer("pipelines")
    def _dump_pipelines(self, value: dict[str, BaseModel]) -> dict[str, dict[str, JsonValue]]:
        return dump_tables(value)

    def pipeline_settings(self, pipeline: str, model: type[S]) -> S:
        """``pipeline``'s settings as ``model`` (its table, else ``model``'s defaults), typed for its recipe."""
        return settings_of(self.pipelines, pipeline, model)

    def _own(self, pipeline: str, key: str) -> Any:
        return getattr(self.pipelines.get(pipeline), key, None)

    def pool_for(self, pipeline: str) -> int:
        """Candidates per search step for ``pipeline``: its ``pool``, else ``candidate_pool``."""
        own = self._own(pipeline, "pool")
        return int(own) if own is not None else self.candidate_pool

    def context_tokens_for(self, pipeline: str) -> int:
        """Context budget for ``pipeline``: its ``context_tokens``, else the section's."""
        own = self._own(pipeline, "context_tokens")
        return int(own) if own is not None else self.context_tokens

    def dense_sentence_share_for(self, pipeline: str) -> float:
        """Share of the best-sentence score in ``pipeline``'s dense searches: its own, else the section's."""
        own = self._own(pipeline, "dense_sentence_share")
        return float(own) if own is not None else self.dense_sentence_share

    def rrf_k_for(self, pipeline: str) -> int:
        """RRF constant for ``pipeline``: its ``rrf_k``, else the section's."""
        own = self._own(pipeline, "rrf_k")
        return int(own) if own is not None else self.rrf_k
