"""Response caches: SQLite in the workspace database (persistent, shared by runs) and an in-memory fake.

Only replies the caller accepted are put (a structured reply is validated first), so a broken reply can
never be replayed. Keys come from :meth:`ChatRequest.cache_key`.
"""

from __future__ import annotations

import threading
import time

from kgrag.core.llm_types import ChatRequest
from kgrag.models.llm.base import CachedResponse
from kgrag.store.sqlite.database import Database


class InMemoryResponseCache:
    """Dict-backed cache for tests and one-off runs without a workspace."""

    def __init__(self) -> None:
        self._items: dict[str, CachedResponse] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedResponse | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: str, request: ChatRequest, response: CachedResponse) -> None:
        with self._lock:
            self._items[key] = response

    def delete(self, key: str) -> None:
        with self._lock:
            self._items.pop(key, None)

    def count(self) -> int:
        with self._lock:
            return len(self._items)


class SQLiteResponseCache:
    """The ``llm_cache`` table (see :mod:`kgrag.models.llm.sqlite_tables`)."""

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
