"""PostgreSQL's part of the denoise repository (:class:`kgrag.store.sql.denoise.SqlDenoise`).

Stale flags come back with one joined ``UPDATE … FROM`` instead of a correlated subquery per row.
"""

from __future__ import annotations

from kgrag.store.postgres.database import PgDatabase
from kgrag.store.postgres.qmark import PgQmark
from kgrag.store.postgres.schema_denoise import SNAPSHOT_TABLES
from kgrag.store.sql.database import POSTGRESQL
from kgrag.store.sql.denoise import SqlDenoise


class PgDenoise(SqlDenoise):
    """Implements :class:`kgrag.store.base.DenoiseRepository` over the workspace schema."""

    def __init__(self, db: PgDatabase) -> None:
        super().__init__(PgQmark(db), POSTGRESQL, SNAPSHOT_TABLES)

    def restore_stale_sql(self, table: str) -> str:
        return (
            f"UPDATE {table} t SET stale = s.stale FROM denoise_snap_{table} s "
            "WHERE s.snap_run = ? AND s.row_id = t.rowid"
        )
