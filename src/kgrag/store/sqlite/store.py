"""The embedded SQLite store: one file, WAL, all repositories sharing one transaction scope."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgrag.models.llm.sqlite_tables import LLM_SCHEMAS
from kgrag.store.sqlite.chunks import CHUNKS_DDL, SQLiteChunks
from kgrag.store.sqlite.database import Database
from kgrag.store.sqlite.documents import DOCUMENTS_DDL, META_DDL, SQLiteDocuments, SQLiteMeta
from kgrag.store.sqlite.graph import GRAPH_DDL, SQLiteGraph
from kgrag.store.sqlite.vectors import VECTORS_DDL, SQLiteVectors

SCHEMAS: tuple[str, ...] = (META_DDL, DOCUMENTS_DDL, CHUNKS_DDL, VECTORS_DDL, GRAPH_DDL, *LLM_SCHEMAS)


class SQLiteStore:
    """Implements :class:`kgrag.store.base.Store` over a single SQLite file.

    ``SQLiteStore(":memory:")`` is the in-process fake for tests: same code path, nothing on disk.
    """

    def __init__(self, path: Path | str, extra_schemas: tuple[str, ...] = ()) -> None:
        self.db = Database(path, SCHEMAS + extra_schemas)
        self.meta = SQLiteMeta(self.db)
        self.documents = SQLiteDocuments(self.db)
        self.chunks = SQLiteChunks(self.db)
        self.vectors = SQLiteVectors(self.db)
        self.graph = SQLiteGraph(self.db)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.db.transaction():
            yield

    def llm_database(self) -> Database:
        """Where the LLM response cache and usage ledger live: the same file, the same transactions."""
        return self.db

    def scratch_copy(self) -> SQLiteStore:
        """An in-memory copy of everything, for dry runs (``kgrag index --estimate``)."""
        copy = SQLiteStore(":memory:")
        self.db.backup_to(copy.db)
        return copy

    def generation(self) -> int:
        return self.db.generation

    def size_bytes(self) -> int:
        return self.db.size_bytes()

    def close(self) -> None:
        self.db.close()
