"""The ``[store]`` section of kgrag.toml."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, Field, PrivateAttr, SerializeAsAny, field_validator, model_serializer, model_validator

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
from kgrag.core.hnsw_settings import HnswSettings
from kgrag.core.registry import Registry, settings_of
from kgrag.core.vector_index import AUTO, AnnParams

S = TypeVar("S", bound=BaseModel)

FORMER_KEYS: dict[str, tuple[str, ...]] = {
    "hnsw_m": ("vector_indexes.hnsw.m",),
    "hnsw_ef_construction": ("vector_indexes.hnsw.ef_construction",),
    "hnsw_ef_search": ("vector_indexes.hnsw.ef_search",),
}
"""Flat ``[store]`` keys of the `hnsw` index, and its table's keys they are read as."""

declare_moves("store", FORMER_KEYS)


class StoreConfig(Section):
    """Where the workspace keeps documents, chunks, vectors, the graph and the LLM cache and ledger."""

    backend: str = Field(
        "sqlite",
        description="Store backend, by registry name: `sqlite` (built in: one SQLite file per workspace, "
        "FTS5 for BM25, exact NumPy vector search), `postgresql` (PostgreSQL + pgvector, extra "
        "`kgrag[postgres]`; see docs/postgresql.md) or a plug-in registered under the `kgrag.stores` "
        'entry-point group. Shorthand: `store = "postgresql://user@host:5432/db"` (or `KGRAG_STORE=...`) sets '
        'both backend and url; `store = "sqlite:///path/to/file.sqlite3"` likewise.',
    )
    url: str | None = Field(
        None,
        description="Where the backend's data lives. For `sqlite` the database file: empty = "
        "`<workspace>/kgrag.sqlite3`; a relative path is relative to the workspace; `:memory:` keeps "
        "everything in memory (tests). For `postgresql` the server URL, "
        "`postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME]`; the workspace's tables live in "
        "that schema, default `kgrag_<workspace directory name>`. Other backends take their own URL.",
    )

    @model_validator(mode="before")
    @classmethod
    def _former_keys(cls, data: Any) -> Any:
        return move_keys(data, "store", FORMER_KEYS)

    @model_validator(mode="before")
    @classmethod
    def _from_url(cls, value: Any) -> Any:
        """Accept the shorthand ``store = "postgresql://…"`` / ``KGRAG_STORE=sqlite:///path``: a URL string
        names both the backend (by its scheme) and the url. A JSON object string (from the environment)
        is read as the table it spells."""
        if isinstance(value, str):
            text = value.strip()
            value = json.loads(text) if text.startswith("{") else store_from_url(text)
        if not isinstance(value, dict):
            return value
        tables = dict(value.get("backends") or {})  # `[store.<name>]` tables sit in the section itself
        tables.update(
            {
                key: table
                for key, table in value.items()
                if key not in cls.model_fields and isinstance(table, dict | BaseModel)
            }
        )
        return {**{k: v for k, v in value.items() if k not in tables}, "backends": tables}

    backends: dict[str, SerializeAsAny[BaseModel]] = Field(
        default_factory=dict,
        description="One `[store.<name>]` table per backend with settings of its own (plug-in backends declare a "
        "settings model; the factory reads it with `config.settings(name, Model)`), validated against that model "
        "(see *Entry settings*).",
        json_schema_extra={"entry_kind": "store", "flat": True},
    )

    @field_validator("backends", mode="before")
    @classmethod
    def _backend_tables(cls, value: Any) -> dict[str, BaseModel]:
        return check_tables("store", value, "store")

    @model_serializer(mode="wrap")
    def _flat(self, handler: Any) -> dict[str, Any]:
        """``[store.<name>]`` tables sit in the section itself, as they are written in kgrag.toml."""
        out: dict[str, Any] = handler(self)
        out.pop("backends", None)
        return {**out, **dump_tables(self.backends)}

    def settings(self, backend: str, model: type[S]) -> S:
        """Backend ``backend``'s settings as ``model`` (its table, else ``model``'s defaults)."""
        return settings_of(self.backends, backend, model)

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        """Fail at load time, naming the field, rather than when the workspace opens its store."""
        return known_registry("store").check(value, "store.backend")

    # -- in-memory vector search (docs/store.md#ann) -----------------------------------------------------
    vector_index: str = Field(
        "auto",
        description="Vector search for in-memory indexes: `auto` = chunk vectors on `sqlite` exact below "
        "`ann_threshold`, HNSW above (graph entity/relation vectors stay exact: their index is not saved); "
        "`exact` always exact; `hnsw` always approximate, graph vectors included (faiss-cpu, extra `ann`; "
        "exact with a warning when faiss is missing). Plug-ins register under `kgrag.vector_indexes`.",
    )
    ann_threshold: int = Field(
        20_000,
        ge=1,
        description="With `vector_index = auto`, chunk collections of at least this many vectors use HNSW. "
        "Exact search costs grow with the collection and outgrow a query's time budget near this size, while "
        "HNSW stays fast at near-exact recall after a one-off, saved build (bench/bench_ann.py, "
        "docs/vector-search.md; the figures: docs/results/design-measurements.md).",
    )
    ann_persist: bool = Field(
        True,
        description="Save built HNSW indexes next to the SQLite file (`<db>.ann/`), keyed by a hash of the "
        "vectors, so a new process loads instead of rebuilding; appended chunks extend the saved index.",
    )

    # -- in-memory BM25 on sqlite (docs/architecture.md, store) ---------------------------------------------
    lexical_index: Literal["auto", "memory", "fts5"] = Field(
        "auto",
        description="How `sqlite` answers BM25 searches: `fts5` asks SQLite's FTS5 index every time; `memory` "
        "ranks from an in-memory copy of that index, chunk rows included (same ids and scores in a fraction of "
        "FTS5's time, for a few MB more memory: docs/results/design-measurements.md), built at the first search "
        "after each change; `auto` lets FTS5 answer the first 8 searches after each change, then builds the "
        "copy if the workspace has at most `lexical_max_chunks` chunks: the build "
        "pays off in a server or an evaluation run, not in a one-shot `kgrag query`. `postgresql` always "
        "uses its own tsvector search.",
    )
    lexical_max_chunks: int = Field(
        8_000,
        ge=0,
        description="With `lexical_index = auto`, workspaces with more chunks keep searching FTS5: the copy's "
        "memory grows with the corpus, and this bound keeps a query process within its memory target "
        "(docs/results/performance.md; the figures: docs/results/design-measurements.md).",
    )

    vector_indexes: Annotated[Tables, EntryTables("vector_index", "store.vector_indexes")] = tables_field(
        "vector_index",
        "One `[store.vector_indexes.<name>]` table per vector index with settings of its own (plug-ins).",
    )

    @field_validator("vector_index")
    @classmethod
    def _known_vector_index(cls, value: str) -> str:
        return value if value == AUTO else known_registry("vector_index").check(value, "store.vector_index")

    _vector_indexes: Registry[Any] | None = PrivateAttr(default=None)

    def with_vector_indexes(self, registry: Registry[Any]) -> StoreConfig:
        """A copy whose :meth:`ann_params` look ``store.vector_index`` up in ``registry`` (a workspace's),
        so every index the store and the graph build honours what was registered on that workspace."""
        copy = self.model_copy()
        copy._vector_indexes = registry
        return copy

    def ann_params(self) -> AnnParams:
        """The vector-index choice as the core value every index builder takes (the HNSW knobs from the
        `hnsw` entry's table)."""
        hnsw = self.entry_settings("vector_indexes", "hnsw", HnswSettings)
        return AnnParams(
            indexes=self._vector_indexes,
            index=self.vector_index,
            threshold=self.ann_threshold,
            m=hnsw.m,
            ef_construction=hnsw.ef_construction,
            ef_search=hnsw.ef_search,
            persist=self.ann_persist,
        )


def store_from_url(url: str) -> dict[str, str | None]:
    """``postgresql://…`` → the ``postgresql`` backend with that url; ``sqlite:///path`` → the ``sqlite``
    backend with that path, following SQLAlchemy's convention (``sqlite:///rel.sqlite3`` is relative to the
    workspace, ``sqlite:////abs/file.sqlite3`` absolute, ``sqlite:///:memory:`` in memory); anything else is
    a ValueError that pydantic reports against the ``store`` field."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme in ("postgresql", "postgres"):
        return {"backend": "postgresql", "url": url}
    if sep and scheme == "sqlite":
        path = rest[1:] if rest.startswith("/") else rest
        return {"backend": "sqlite", "url": path or None}
    raise ValueError(
        f"store = {url!r} is not a store URL; use postgresql://USER@HOST[:PORT]/DATABASE or sqlite:///PATH, "
        "or a [store] table with backend and url"
    )
