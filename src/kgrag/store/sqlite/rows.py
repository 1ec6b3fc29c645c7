"""Row-level reads and writes of the logical tables (:mod:`kgrag.store.tables`) for ``kgrag migrate``.

Reads page by key (``WHERE (key) > (last) ORDER BY key LIMIT n``), so a large workspace is streamed,
never held. Vectors travel as float32 arrays; here they are stored as blobs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kgrag.store.sqlite.database import Database
from kgrag.store.tables import TableSpec


def _decode(table: TableSpec, row: Sequence[Any]) -> tuple[Any, ...]:
    if table.name != "embeddings":
        return tuple(row)
    import numpy as np  # only copies of vectors need it; opening a store must not (`kgrag status`)

    return (row[0], row[1], np.frombuffer(row[2], dtype=np.float32).copy())


def _encode(table: TableSpec, row: Sequence[Any]) -> tuple[Any, ...]:
    if table.name != "embeddings":
        return tuple(row)
    import numpy as np

    return (row[0], row[1], np.asarray(row[2], dtype=np.float32).tobytes())


class SQLiteRows:
    """Implements :class:`kgrag.store.base.TableRows` over the SQLite file."""

    def __init__(self, db: Database) -> None:
        self._db = db

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
            yield [_decode(table, r) for r in rows]
            last = [rows[-1][i] for i in positions]

    def write(self, table: TableSpec, rows: Sequence[tuple[Any, ...]]) -> None:
        key, *rest = table.columns
        if table.update:
            sql = f"UPDATE {table.name} SET {', '.join(f'{c} = ?' for c in rest)} WHERE {key} = ?"
            self._db.executemany(sql, [(*r[1:], r[0]) for r in rows])
            return
        marks = ", ".join("?" * len(table.columns))
        sql = f"INSERT INTO {table.name} ({', '.join(table.columns)}) VALUES ({marks})"
        self._db.executemany(sql, [_encode(table, r) for r in rows])

    def count(self, table: TableSpec) -> int:
        return int(self._db.scalar(f"SELECT COUNT(*) FROM {table.name}") or 0)

    def finish_import(self) -> None:
        """Nothing to do: SQLite's rowids continue after the largest one present."""
