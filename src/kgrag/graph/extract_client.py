"""Adapter: the LLM client graph construction uses, taken from a workspace.

The workspace is expected to grow an accessor for its shared LLM client (one cache, one ledger, one run
id per indexing run). Until it has one, graph construction builds a client itself on the workspace
database, creating the LLM layer's tables there if the store did not, so cache and ledger still persist
with the index. Kept apart so that the day the accessor exists, only this function changes.
"""

from __future__ import annotations

from typing import Any

from kgrag.models.llm.client import LLMClient
from kgrag.models.llm.registry import create_llm_client
from kgrag.models.llm.sqlite_tables import LLM_SCHEMAS
from kgrag.store.sqlite.database import Database

_ACCESSORS = ("llm_client", "llm")


def ensure_llm_tables(db: Database) -> None:
    """Create the cache and ledger tables when missing (every statement is ``IF NOT EXISTS``)."""
    with db.transaction():
        for ddl in LLM_SCHEMAS:
            for statement in ddl.split(";"):
                if statement.strip():
                    db.execute(statement)


def workspace_llm_client(workspace: Any) -> LLMClient:
    """The workspace's own client if it offers one, else a new one on its database (or in memory)."""
    for attribute in _ACCESSORS:
        accessor = getattr(workspace, attribute, None)
        if callable(accessor):
            client = accessor()
            if isinstance(client, LLMClient):
                return client
    db = getattr(getattr(workspace, "store", None), "db", None)
    if isinstance(db, Database):
        ensure_llm_tables(db)
        return create_llm_client(workspace.config.llm, db)
    return create_llm_client(workspace.config.llm)
