"""What both stores share around their repositories: composing the dialect-neutral ones over one
database and delegating the store-wide operations (transactions, dry runs, generation, size, close)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from kgrag.store.sql.communities import SqlCommunities
from kgrag.store.sql.conversations import SqlConversations
from kgrag.store.sql.database import Dialect, SqlDatabase
from kgrag.store.sql.documents import SqlDocuments, SqlMeta
from kgrag.store.sql.eval_runs import SqlEvalRuns
from kgrag.store.sql.graph import SqlGraph
from kgrag.store.sql.llm_cache import SqlResponseCache
from kgrag.store.sql.llm_ledger import SqlLedger


class Engine(Protocol):
    """The store-wide side of a backend's database object."""

    def transaction(self, *, content: bool = True) -> AbstractContextManager[None]: ...

    def dry_run(self) -> AbstractContextManager[None]: ...

    @property
    def generation(self) -> int: ...

    def steady_generation(self) -> AbstractContextManager[None]: ...

    def size_bytes(self) -> int: ...

    def compact(self) -> bool: ...

    def close(self) -> None: ...


class SqlStore:
    """Base of :class:`kgrag.store.sqlite.SQLiteStore` and the PostgreSQL store; each backend adds its
    chunks (full-text search), vectors, denoise snapshots and row copies."""

    def __init__(self, engine: Engine, shared: SqlDatabase, dialect: Dialect) -> None:
        """``shared`` is ``engine`` as the repositories of :mod:`kgrag.store.sql` address it (``?`` SQL)."""
        self._engine = engine
        self.meta = SqlMeta(shared)
        self.documents = SqlDocuments(shared, dialect)
        self.graph = SqlGraph(shared, dialect)
        self.communities = SqlCommunities(shared, dialect)
        self.llm_cache = SqlResponseCache(shared)
        self.llm_ledger = SqlLedger(shared)
        self.eval_runs = SqlEvalRuns(shared)
        self.conversations = SqlConversations(shared)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._engine.transaction():
            yield

    @contextmanager
    def dry_run(self) -> Iterator[None]:
        """One outer transaction rolled back at the end; nothing is copied."""
        with self._engine.dry_run():
            yield

    def generation(self) -> int:
        return self._engine.generation

    def steady_generation(self) -> AbstractContextManager[None]:
        return self._engine.steady_generation()

    def size_bytes(self) -> int:
        return self._engine.size_bytes()

    def compact(self) -> bool:
        return self._engine.compact()

    def close(self) -> None:
        self._engine.close()
