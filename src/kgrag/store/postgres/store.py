"""The PostgreSQL + pgvector store: one schema per workspace, all repositories sharing one transaction
scope; selected with ``store.backend = "postgresql"`` (or ``store = "postgresql://…"``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgrag.config.store import StoreConfig
from kgrag.store.postgres.chunks import PgChunks
from kgrag.store.postgres.database import PgDatabase
from kgrag.store.postgres.denoise import PgDenoise
from kgrag.store.postgres.qmark import PgQmark
from kgrag.store.postgres.rows import PgRows
from kgrag.store.postgres.url import PgTarget, parse_target
from kgrag.store.postgres.vectors import PgVectors
from kgrag.store.sql.communities import SqlCommunities
from kgrag.store.sql.database import POSTGRESQL
from kgrag.store.sql.documents import SqlDocuments, SqlMeta
from kgrag.store.sql.eval_runs import SqlEvalRuns
from kgrag.store.sql.graph import SqlGraph
from kgrag.store.sql.llm_cache import SqlResponseCache
from kgrag.store.sql.llm_ledger import SqlLedger


class PostgresStore:
    """Implements :class:`kgrag.store.base.Store` over one schema of a PostgreSQL database."""

    def __init__(self, target: PgTarget) -> None:
        self.db = PgDatabase(target)
        shared = PgQmark(self.db)  # the repositories of kgrag.store.sql write `?` placeholders
        self.meta = SqlMeta(shared)
        self.documents = SqlDocuments(shared, POSTGRESQL)
        self.chunks = PgChunks(self.db)
        self.vectors = PgVectors(self.db)
        self.graph = SqlGraph(shared, POSTGRESQL)
        self.communities = SqlCommunities(shared, POSTGRESQL)
        self.denoise = PgDenoise(self.db)
        self.llm_cache = SqlResponseCache(shared)
        self.llm_ledger = SqlLedger(shared)
        self.eval_runs = SqlEvalRuns(shared)
        self.rows = PgRows(self.db)  # row-level copies (kgrag migrate)

    @property
    def target(self) -> PgTarget:
        return self.db.target

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.db.transaction():
            yield

    @contextmanager
    def dry_run(self) -> Iterator[None]:
        """One outer transaction rolled back at the end; nothing is copied."""
        with self.db.dry_run():
            yield

    def generation(self) -> int:
        return self.db.generation

    def size_bytes(self) -> int:
        return self.db.size_bytes()

    def close(self) -> None:
        self.db.close()


def open_postgres_store(config: StoreConfig, workspace: Path) -> PostgresStore:
    """The ``postgresql`` entry of the store registry: ``store.url`` is ``postgresql://…[?schema=NAME]``
    (schema default ``kgrag_<workspace directory name>``, see :mod:`kgrag.store.postgres.url`)."""
    return PostgresStore(parse_target(config.url, workspace))
