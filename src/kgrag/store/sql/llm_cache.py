"""The LLM response cache as a table of the workspace database: replies survive the process, so a rerun
resumes where a failed or interrupted one stopped, and an estimate counts cached calls as free."""

from __future__ import annotations

import time

from kgrag.core.llm_types import ChatRequest
from kgrag.core.llm_usage import CachedResponse
from kgrag.store.sql.database import SqlDatabase

_UPSERT = (
    "INSERT INTO llm_cache (key, model, prompt_name, prompt_version, response, finish_reason, "
    "prompt_tokens, completion_tokens, created_at) VALUES (?,?,?,?,?,?,?,?,?) "
    "ON CONFLICT (key) DO UPDATE SET model = excluded.model, prompt_name = excluded.prompt_name, "
    "prompt_version = excluded.prompt_version, response = excluded.response, "
    "finish_reason = excluded.finish_reason, prompt_tokens = excluded.prompt_tokens, "
    "completion_tokens = excluded.completion_tokens, created_at = excluded.created_at"
)


class SqlResponseCache:
    """The ``llm_cache`` table; writes are bookkeeping (``content=False``: no hot-index reload)."""

    def __init__(self, db: SqlDatabase) -> None:
        self._db = db

    def get(self, key: str) -> CachedResponse | None:
        rows = self._db.query(
            "SELECT response, finish_reason, prompt_tokens, completion_tokens FROM llm_cache WHERE key = ?",
            (key,),
        )
        if not rows:
            return None
        row = rows[0]
        return CachedResponse(row[0], row[1], int(row[2]), int(row[3]))

    def put(self, key: str, request: ChatRequest, response: CachedResponse) -> None:
        prompt = request.prompt
        row = (
            key,
            request.model,
            prompt.name if prompt else None,
            prompt.version if prompt else None,
            response.text,
            response.finish_reason,
            response.prompt_tokens,
            response.completion_tokens,
            time.time(),
        )
        with self._db.transaction(content=False):
            self._db.execute(_UPSERT, row)

    def delete(self, key: str) -> None:
        with self._db.transaction(content=False):
            self._db.execute("DELETE FROM llm_cache WHERE key = ?", (key,))

    def count(self) -> int:
        return int(self._db.scalar("SELECT COUNT(*) FROM llm_cache") or 0)

    def clear(self) -> int:
        with self._db.transaction(content=False):
            return self._db.changes("DELETE FROM llm_cache")
