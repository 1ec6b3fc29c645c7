"""Row-level reads and writes of the logical tables (:mod:`kgrag.store.tables`) for ``kgrag migrate``.

Reads page by key (``WHERE (key) > (last) ORDER BY key LIMIT n``), so a large workspace is streamed,
never held. Vectors travel as float32 arrays; each backend converts them to its own column type in
:meth:`SqlRows.decode` / :meth:`SqlRows.encode` and finishes an import its own way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kgrag.store.sql.database import Row, SqlDatabase
from kgrag.store.tables import TableSpec


class SqlRows:
    """Implements :class:`kgrag.store.base.TableRows`; subclasses convert the ``embeddings`` vectors."""

    def __init__(self, db: SqlDatabase) -> None:
        self._db = db

    def decode(self, table: TableSpec, row: Row) -> tuple[Any, ...]:
        """A stored row as the portable tuple (the base keeps every value as stored)."""
        return tuple(row[i] for i in range(len(table.columns)))

    def encode(self, table: TableSpec, row: tuple[Any, ...]) -> tuple[Any, ...]:
        """A portable tuple as the row to insert (the base stores every value as given)."""
        return row

    def read(self, table: TableSpec, batch: int) -> Iterator[list[tuple[Any, ...]]]:
        cols, keys = ", ".join(table.columns), ", ".join(table.order_by)
        positions = [table.columns.index(k) for k in table.order_by]
        last: list[Any] | None = None
        while True:
            where = f"WHERE ({keys}) > ({', '.join('?' * len(positions))}) " if last is not None else ""
            rows = self._db.query(
                f"SELECT {cols} FROM {table.name} {where}ORDER BY {keys} LIMIT ?", [*(last or ()), batch]
            )
            if not rows:
                return
            yield [self.decode(table, r) for r in rows]
            last = [rows[-1][i] for i in positions]

    def write(self, table: TableSpec, rows: Sequence[tuple[Any, ...]]) -> None:
        key, *rest = table.columns
        if table.update:
            sql = f"UPDATE {table.name} SET {', '.join(f'{c} = ?' for c in rest)} WHERE {key} = ?"
            self._db.executemany(sql, [(*r[1:], r[0]) for r in rows])
            return
        marks = ", ".join("?" * len(table.columns))
        sql = f"INSERT INTO {table.name} ({', '.join(table.columns)}) VALUES ({marks})"
        self._db.executemany(sql, [self.encode(table, r) for r in rows])

    def count(self, table: TableSpec) -> int:
        return int(self._db.scalar(f"SELECT COUNT(*) FROM {table.name}") or 0)

    def finish_import(self) -> None:
        """Nothing to do by default (SQLite's rowids continue after the largest one present)."""
