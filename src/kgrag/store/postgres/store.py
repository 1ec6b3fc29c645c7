"""The PostgreSQL + pgvector store: one schema per workspace, all repositories sharing one transaction
scope; selected with ``store.backend = "postgresql"`` (or ``store = "postgresql://…"``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgrag.config.store import StoreConfig
from kgrag.core.progress import Progress
from kgrag.store.postgres.chunks import PgChunks
from kgrag.store.postgres.database import PgDatabase
from kgrag.store.postgres.denoise import PgDenoise
from kgrag.store.postgres.index_lock import advisory_lock
from kgrag.store.postgres.qmark import PgQmark
from kgrag.store.postgres.rows import PgRows
from kgrag.store.postgres.url import PgTarget, parse_target
from kgrag.store.postgres.vectors import PgVectors
from kgrag.store.sql.database import POSTGRESQL
from kgrag.store.sql.store import SqlStore


class PostgresStore(SqlStore):
    """Implements :class:`kgrag.store.base.Store` over one schema of a PostgreSQL database."""

    def __init__(self, target: PgTarget) -> None:
        self.db = PgDatabase(target)
        super().__init__(self.db, PgQmark(self.db), POSTGRESQL)  # the shared repositories write `?` SQL
        self.chunks = PgChunks(self.db)
        self.vectors = PgVectors(self.db)
        self.denoise = PgDenoise(self.db)
        self.rows = PgRows(self.db)  # row-level copies (kgrag migrate)

    @property
    def target(self) -> PgTarget:
        return self.db.target

    @contextmanager
    def indexing_lock(self, progress: Progress) -> Iterator[None]:
        """:meth:`kgrag.store.base.IndexLocking.indexing_lock`: the schema's advisory lock on the server,
        so indexers in different workspace directories (or machines) sharing this schema take turns."""
        with advisory_lock(self.target, progress), self.db.no_reconnect():
            yield


def open_postgres_store(config: StoreConfig, workspace: Path) -> PostgresStore:
    """The ``postgresql`` entry of the store registry: ``store.url`` is ``postgresql://…[?schema=NAME]``
    (schema default ``kgrag_<workspace directory name>``, see :mod:`kgrag.store.postgres.url`)."""
    return PostgresStore(parse_target(config.url, workspace))
