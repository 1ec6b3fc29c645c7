"""SQLite's part of the row-level copies (:class:`kgrag.store.sql.rows.SqlRows`): vectors are blobs."""

from __future__ import annotations

from typing import Any

from kgrag.store.sql.database import Row
from kgrag.store.sql.rows import SqlRows
from kgrag.store.tables import TableSpec


class SQLiteRows(SqlRows):
    """Implements :class:`kgrag.store.base.TableRows` over the SQLite file."""

    def decode(self, table: TableSpec, row: Row) -> tuple[Any, ...]:
        if table.name != "embeddings":
            return super().decode(table, row)
        import numpy as np  # only copies of vectors need it; opening a store must not (`kgrag status`)

        return (row[0], row[1], np.frombuffer(row[2], dtype=np.float32).copy())

    def encode(self, table: TableSpec, row: tuple[Any, ...]) -> tuple[Any, ...]:
        if table.name != "embeddings":
            return row
        import numpy as np

        return (row[0], row[1], np.asarray(row[2], dtype=np.float32).tobytes())
