"""The ``[store]`` section of kgrag.toml."""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, field_validator, model_validator

from kgrag.config.base import Section
from kgrag.core.builtins import new_registry


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
    def _from_url(cls, value: Any) -> Any:
        """Accept the shorthand ``store = "postgresql://…"`` / ``KGRAG_STORE=sqlite:///path``: a URL string
        names both the backend (by its scheme) and the url. A JSON object string (from the environment)
        is read as the table it spells."""
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("{"):
            return json.loads(text)
        return store_from_url(text)

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        """Fail at load time, naming the field, rather than when the workspace opens its store."""
        return new_registry("store").check(value, "store.backend")


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
