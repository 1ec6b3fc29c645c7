"""The ``[indexing]`` section of kgrag.toml."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field, JsonValue, SerializeAsAny, field_serializer, field_validator, model_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import (
    EntryTables,
    Tables,
    check_tables,
    declare_moves,
    dump_tables,
    known_registry,
    move_keys,
    tables_field,
)
from kgrag.core.registry import settings_of

S = TypeVar("S", bound=BaseModel)

FORMER_KEYS: dict[str, tuple[str, ...]] = {
    f"ray_{key}": (f"engines.ray.{key}",)
    for key in (
        "address",
        "num_cpus",
        "load_batch",
        "load_concurrency",
        "extract_batch",
        "extract_concurrency",
        "embed_batch",
        "embed_concurrency",
    )
}
"""The flat ``[indexing]`` keys of the `ray` engine, and its table's keys they are read as."""

declare_moves("indexing", FORMER_KEYS)


class IndexingConfig(Section):
    """How `kgrag index` runs: which pipeline of named stages, on which engine."""

    pipeline: str = Field(
        "standard",
        description="Indexing pipeline: an ordered list of stages. `standard` builds everything (chunks, "
        "vectors, graph); `no-graph` skips extraction (an existing graph still follows removed or re-chunked "
        "documents); `fast` is lexical only (BM25 at once, documents stay `chunked`; a later `standard` run "
        "adds vectors and graph). Installed plug-ins add pipelines (entry points `kgrag.index_pipelines`, "
        "stages `kgrag.stages`); `kgrag` rejects names it does not know.",
    )
    engine: str = Field(
        "local",
        description="Where the stages' heavy work runs: `local` (this process) or `ray` (loading+chunking, "
        "extraction and embedding as Ray Data stages, writes from this process; needs `pip install "
        "'kgrag[ray]'`, see docs/ray.md). Both build the same index. Plug-ins: entry points `kgrag.index_engines`.",
    )
    stages: dict[str, SerializeAsAny[BaseModel]] = Field(
        default_factory=dict,
        description="One `[indexing.stages.<name>]` table per stage with settings of its own (plug-in stages "
        "declare a settings model), validated against that model (see *Entry settings*).",
        json_schema_extra={"entry_kind": "stage"},
    )

    pipelines: Annotated[Tables, EntryTables("index_pipeline", "indexing.pipelines")] = tables_field(
        "index_pipeline",
        "One `[indexing.pipelines.<name>]` table per indexing pipeline with settings of its own (plug-ins).",
    )
    engines: Annotated[Tables, EntryTables("index_engine", "indexing.engines")] = tables_field(
        "index_engine",
        "One `[indexing.engines.<name>]` table per engine with settings of its own (see *Entry settings*).",
    )

    @model_validator(mode="before")
    @classmethod
    def _former_keys(cls, data: Any) -> Any:
        return move_keys(data, "indexing", FORMER_KEYS)

    @field_validator("stages", mode="before")
    @classmethod
    def _stage_tables(cls, value: Any) -> dict[str, BaseModel]:
        return check_tables("stage", value, "indexing.stages")

    @field_serializer("stages")
    def _dump_stages(self, value: dict[str, BaseModel]) -> dict[str, dict[str, JsonValue]]:
        return dump_tables(value)

    def stage_settings(self, stage: str, model: type[S]) -> S:
        """Stage ``stage``'s settings as ``model`` (its table, else ``model``'s defaults)."""
        return settings_of(self.stages, stage, model)

    @field_validator("pipeline")
    @classmethod
    def _known_pipeline(cls, value: str) -> str:
        """Fail at load time, naming the field, rather than when indexing starts."""
        return known_registry("index_pipeline").check(value, "indexing.pipeline")

    @field_validator("engine")
    @classmethod
    def _known_engine(cls, value: str) -> str:
        """An engine name is checked like a pipeline name: at load time, naming the field."""
        return known_registry("index_engine").check(value, "indexing.engine")
