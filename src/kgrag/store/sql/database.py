"""The small surface the shared repositories need from a backend's database, and what differs by dialect.

SQL in :mod:`kgrag.store.sql` uses ``?`` placeholders and reads rows by position: SQLite's connection
takes that as is, and the PostgreSQL store hands the repositories an adapter that rewrites ``?`` to
``%s`` (see :mod:`kgrag.store.postgres.qmark`). Statements must therefore not contain a literal ``?``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

_BATCH = 500  # ids per ``IN (?, …)`` list in SQLite, well under its limit on bound parameters


class Row(Protocol):
    """A result row read by position: ``sqlite3.Row`` and psycopg's tuples both qualify."""

    def __getitem__(self, index: int, /) -> Any: ...


class SqlDatabase(Protocol):
    """Statements and the transaction scope shared by every repository of one store."""

    def transaction(self, *, content: bool = True) -> AbstractContextManager[None]: ...

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> object: ...

    def changes(self, sql: str, params: Sequence[Any] = ..., /) -> int:
        """Execute one write and return the number of rows it changed."""
        ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]], /) -> None: ...

    def query(self, sql: str, params: Sequence[Any] = ..., /) -> Sequence[Row]: ...

    def scalar(self, sql: str, params: Sequence[Any] = ..., /) -> Any: ...


@dataclass(frozen=True)
class Dialect:
    """The SQL that cannot be written once for both engines (everything else is standard SQL)."""

    name: Literal["sqlite", "postgresql"]

    @property
    def for_update(self) -> str:
        """Suffix locking the rows a transaction reads before rewriting them (SQLite locks the whole file)."""
        return " FOR UPDATE" if self.name == "postgresql" else ""

    def starts_with(self, column: str, prefix: str) -> tuple[str, tuple[Any, ...]]:
        """A condition (and its parameters) that ``column`` starts with ``prefix``, taken literally.

        ``LIKE`` would need escaping and is case-insensitive in SQLite; PostgreSQL has ``starts_with``,
        SQLite compares a substring of the prefix's length.
        """
        if self.name == "postgresql":
            return f"starts_with({column}, ?)", (prefix,)
        return f"substr({column}, 1, ?) = ?", (len(prefix), prefix)

    def batches(self, ids: Sequence[str]) -> Iterator[list[str]]:
        """``ids`` without repeats, in as few lists as one statement can take (all of them in PostgreSQL,
        where a list is one array parameter; batches of placeholders in SQLite)."""
        distinct = list(dict.fromkeys(ids))
        size = len(distinct) if self.name == "postgresql" else _BATCH
        for start in range(0, len(distinct), max(size, 1)):
            yield distinct[start : start + size]

    def in_batches(self, column: str, ids: Sequence[str]) -> Iterator[tuple[str, list[Any]]]:
        """``(condition, parameters)`` that ``column`` is one of ``ids``, per :meth:`batches` statement."""
        for batch in self.batches(ids):
            yield self.one_of(column, batch)

    def one_of(self, column: str, batch: Sequence[str]) -> tuple[str, list[Any]]:
        """A condition (and its parameters) that ``column`` is one of ``batch`` (from :meth:`batches`)."""
        if self.name == "postgresql":
            return f"{column} = ANY(?)", [list(batch)]
        return f"{column} IN ({','.join('?' * len(batch))})", list(batch)


SQLITE = Dialect("sqlite")
POSTGRESQL = Dialect("postgresql")
