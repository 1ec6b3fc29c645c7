"""PostgreSQL's part of the row-level copies (:class:`kgrag.store.sql.rows.SqlRows`).

Writes keep the copied identities (``rowid``, ``llm_calls.id``), and :meth:`PgRows.finish_import` moves
each identity sequence past them so that rows written later do not collide.
"""

from __future__ import annotations

from typing import Any

from kgrag.store.postgres.database import PgDatabase
from kgrag.store.postgres.qmark import PgQmark
from kgrag.store.postgres.vectors import as_array, ensure_index
from kgrag.store.sql.database import Row
from kgrag.store.sql.rows import SqlRows
from kgrag.store.tables import COPIED, TableSpec

_IDENTITIES = ("rowid", "id")  # the identity column names used by the schema


class PgRows(SqlRows):
    """Implements :class:`kgrag.store.base.TableRows` over the workspace schema."""

    def __init__(self, db: PgDatabase) -> None:
        super().__init__(PgQmark(db))
        self._pg = db

    def decode(self, table: TableSpec, row: Row) -> tuple[Any, ...]:
        if table.name != "embeddings":
            return super().decode(table, row)
        return (row[0], row[1], as_array(row[2]))

    def finish_import(self) -> None:
        """Move identity sequences past the copied rows and build the HNSW index of every copied model
        (after the load, which is much faster than growing the graph row by row)."""
        for model, dimension in self._pg.query("SELECT DISTINCT model, vector_dims(vector) FROM embeddings"):
            ensure_index(self._pg, str(model), int(dimension))
        for table in COPIED:
            for column in (c for c in _IDENTITIES if c in table.columns):
                sequence = self._pg.scalar("SELECT pg_get_serial_sequence(%s, %s)", (table.name, column))
                if sequence:
                    self._pg.execute(
                        f"SELECT setval(%s, COALESCE((SELECT MAX({column}) FROM {table.name}), 0) + 1, false)",
                        (sequence,),
                    )
