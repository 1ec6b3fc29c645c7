"""Row-level reads and writes of the logical tables (:mod:`kgrag.store.tables`) for ``kgrag migrate``.

Reads page by key, so a large workspace is streamed; writes keep the copied identities (``rowid``,
``llm_calls.id``), and :meth:`PgRows.finish_import` moves each identity sequence past them so that rows
written later do not collide.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kgrag.store.postgres.database import PgDatabase
from kgrag.store.postgres.vectors import as_array, ensure_index
from kgrag.store.tables import COPIED, TableSpec

_IDENTITIES = ("rowid", "id")  # the identity column names used by the schema


def _decode(table: TableSpec, row: Sequence[Any]) -> tuple[Any, ...]:
    return (row[0], row[1], as_array(row[2])) if table.name == "embeddings" else tuple(row)


class PgRows:
    """Implements :class:`kgrag.store.base.TableRows` over the workspace schema."""

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    def read(self, table: TableSpec, batch: int) -> Iterator[list[tuple[Any, ...]]]:
        cols, keys = ", ".join(table.columns), ", ".join(table.order_by)
        positions = [table.columns.index(k) for k in table.order_by]
        last: list[Any] | None = None
        while True:
            where = f"WHERE ({keys}) > ({', '.join(['%s'] * len(positions))}) " if last is not None else ""
            rows = self._db.query(
                f"SELECT {cols} FROM {table.name} {where}ORDER BY {keys} LIMIT %s", [*(last or ()), batch]
            )
            if not rows:
                return
            yield [_decode(table, r) for r in rows]
            last = [rows[-1][i] for i in positions]

    def write(self, table: TableSpec, rows: Sequence[tuple[Any, ...]]) -> None:
        key, *rest = table.columns
        if table.update:
            sql = f"UPDATE {table.name} SET {', '.join(f'{c} = %s' for c in rest)} WHERE {key} = %s"
            self._db.executemany(sql, [(*r[1:], r[0]) for r in rows])
            return
        marks = ", ".join(["%s"] * len(table.columns))
        self._db.executemany(f"INSERT INTO {table.name} ({', '.join(table.columns)}) VALUES ({marks})", rows)

    def count(self, table: TableSpec) -> int:
        return int(self._db.scalar(f"SELECT COUNT(*) FROM {table.name}") or 0)

    def finish_import(self) -> None:
        """Move identity sequences past the copied rows and build the HNSW index of every copied model
        (after the load, which is much faster than growing the graph row by row)."""
        for model, dimension in self._db.query("SELECT DISTINCT model, vector_dims(vector) FROM embeddings"):
            ensure_index(self._db, str(model), int(dimension))
        for table in COPIED:
            for column in (c for c in _IDENTITIES if c in table.columns):
                sequence = self._db.scalar("SELECT pg_get_serial_sequence(%s, %s)", (table.name, column))
                if sequence:
                    self._db.execute(
                        f"SELECT setval(%s, COALESCE((SELECT MAX({column}) FROM {table.name}), 0) + 1, false)",
                        (sequence,),
                    )
