"""The PostgreSQL database as the shared repositories see it: ``?`` placeholders, as in SQLite.

psycopg takes ``%s``; rewriting each statement once (cached) lets :mod:`kgrag.store.sql` write its SQL a
single time for both backends. A literal ``%`` is doubled so psycopg does not read it as a placeholder.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from functools import lru_cache
from typing import Any

from kgrag.store.postgres.database import PgDatabase


@lru_cache(maxsize=1024)
def to_pyformat(sql: str) -> str:
    """``?`` → ``%s`` (statements of :mod:`kgrag.store.sql` hold no literal ``?``)."""
    return sql.replace("%", "%%").replace("?", "%s")


class PgQmark:
    """Implements :class:`kgrag.store.sql.database.SqlDatabase` over a :class:`PgDatabase`."""

    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    def transaction(self, *, content: bool = True) -> AbstractContextManager[None]:
        return self.db.transaction(content=content)

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> int:
        return self.db.execute(*_bind(sql, params))

    def changes(self, sql: str, params: Sequence[Any] = (), /) -> int:
        return self.db.execute(*_bind(sql, params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]], /) -> None:
        self.db.executemany(to_pyformat(sql), rows)

    def query(self, sql: str, params: Sequence[Any] = (), /) -> list[tuple[Any, ...]]:
        return self.db.query(*_bind(sql, params))

    def scalar(self, sql: str, params: Sequence[Any] = (), /) -> Any:
        return self.db.scalar(*_bind(sql, params))


def _bind(sql: str, params: Sequence[Any]) -> tuple[str, Sequence[Any] | None]:
    """Without parameters psycopg sends the statement untouched, so it must not be rewritten either."""
    return (to_pyformat(sql), params) if params else (sql, None)
