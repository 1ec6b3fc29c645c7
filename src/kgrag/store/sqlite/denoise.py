"""SQLite's part of the denoise repository (:class:`kgrag.store.sql.denoise.SqlDenoise`).

Snapshot tables are rowid tables filled in the graph tables' rowid order, so a restore re-inserts them in
their own rowid order.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgrag.store.sql.database import SQLITE
from kgrag.store.sql.denoise import SqlDenoise
from kgrag.store.sqlite.database import Database
from kgrag.store.sqlite.denoise_schema import SNAPSHOT_TABLES


class SQLiteDenoise(SqlDenoise):
    """Implements :class:`kgrag.store.base.DenoiseRepository` over the SQLite file."""

    def __init__(self, db: Database) -> None:
        super().__init__(db, SQLITE, SNAPSHOT_TABLES)

    def restore_order_by(self, columns: Sequence[str]) -> str:
        return "rowid"
