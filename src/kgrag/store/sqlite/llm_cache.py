"""The LLM response cache as a table of the workspace database: replies survive the process, so a rerun
resumes where a failed or interrupted one stopped, and an estimate counts cached calls as free."""

from __future__ import annotations

import time

from kgrag.core.llm_types import ChatRequest
from kgrag.core.llm_usage import CachedResponse
from kgrag.store.sqlite.database import Database

LLM_CACHE_DDL = """
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    prompt_name TEXT,
    prompt_version TEXT,
    response TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created_at REAL NOT NULL
);
"""


class SQLiteResponseCache:
    """The ``llm_cache`` table; writes are bookkeeping (``content=False``: no hot-index reload)."""

    def __init__(self, db: Database) -> None:
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
        with self._db.transaction(content=False):
            self._db.execute(
                "INSERT OR REPLACE INTO llm_cache (key, model, prompt_name, prompt_version, response, "
                "finish_reason, prompt_tokens, completion_tokens, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    key,
                    request.model,
                    prompt.name if prompt else None,
                    prompt.version if prompt else None,
                    response.text,
                    response.finish_reason,
                    response.prompt_tokens,
                    response.completion_tokens,
                    time.time(),
                ),
            )

    def delete(self, key: str) -> None:
        with self._db.transaction(content=False):
            self._db.execute("DELETE FROM llm_cache WHERE key = ?", (key,))

    def count(self) -> int:
        return int(self._db.scalar("SELECT COUNT(*) FROM llm_cache") or 0)
