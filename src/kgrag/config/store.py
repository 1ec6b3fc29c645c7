"""The ``[store]`` section of kgrag.toml."""

from __future__ import annotations

from pydantic import Field, field_validator

from kgrag.config.base import Section
from kgrag.core.builtins import new_registry


class StoreConfig(Section):
    """Where the workspace keeps documents, chunks, vectors, the graph and the LLM cache and ledger."""

    backend: str = Field(
        "sqlite",
        description="Store backend, by registry name: `sqlite` (built in: one SQLite file per workspace, "
        "FTS5 for BM25, exact NumPy vector search) or a plug-in registered under the `kgrag.stores` "
        "entry-point group.",
    )
    url: str | None = Field(
        None,
        description="Where the backend's data lives. For `sqlite` the database file: empty = "
        "`<workspace>/kgrag.sqlite3`; a relative path is relative to the workspace; `:memory:` keeps "
        "everything in memory (tests). Other backends take their own connection URL.",
    )

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        """Fail at load time, naming the field, rather than when the workspace opens its store."""
        return new_registry("store").check(value, "store.backend")
