"""One SQLite file in WAL mode: the embedded system of record.

Repositories share this object and its transaction scope. Writes happen inside ``transaction()``
(``BEGIN IMMEDIATE`` ... ``COMMIT``; nested calls become savepoints), so a crash leaves either the whole
unit of work or nothing. A write counter (``generation``) lets in-memory caches such as the dense
vector matrix know when to reload.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kgrag.core.errors import WorkspaceError

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=30000",
    "PRAGMA temp_store=MEMORY",
)


class Database:
    """A SQLite connection with transactions, schema setup and a change counter.

    The connection is shared between threads behind a re-entrant lock: SQLite serialises writers
    anyway, and one connection keeps the hot read path free of connection set-up.
    """

    def __init__(self, path: Path | str, schemas: Sequence[str]) -> None:
        self.path = str(path)
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
        except sqlite3.Error as exc:
            raise WorkspaceError(f"{self.path}: cannot open database ({exc})") from exc
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        self._writes = 0
        try:
            for pragma in _PRAGMAS:
                self._conn.execute(pragma)
            with self.transaction():
                for ddl in schemas:
                    for statement in _split_statements(ddl):
                        self._conn.execute(statement)
        except WorkspaceError:
            self._conn.close()
            raise
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            if _is_locked(exc):
                raise self._locked(exc) from exc
            raise WorkspaceError(
                f"{self.path}: not a usable kgrag database ({exc}); move it away and run `kgrag init`"
            ) from exc

    @contextmanager
    def transaction(self, *, content: bool = True) -> Iterator[None]:
        """Run the block atomically; nested blocks are savepoints inside the outer transaction.

        ``content=False`` marks bookkeeping writes (LLM cache and usage ledger): they do not advance
        :attr:`generation`, so a query that calls the LLM does not make the next query reload the vector
        matrix and the graph index.
        """
        with self._lock:
            depth = self._depth
            name = f"sp{depth}"
            if depth == 0:
                self._begin()
            else:
                self._conn.execute(f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if depth == 0:
                    self._conn.execute("ROLLBACK")
                else:
                    self._conn.execute(f"ROLLBACK TO {name}")
                    self._conn.execute(f"RELEASE {name}")
                raise
            self._depth -= 1
            self._conn.execute("COMMIT" if depth == 0 else f"RELEASE {name}")
            if content:
                self._writes += 1

    @contextmanager
    def dry_run(self) -> Iterator[None]:
        """Open an outer transaction that is always rolled back; every :meth:`transaction` inside becomes
        a savepoint of it, so the real code path runs and reads its own writes, and nothing stays.

        The lock is not held across the block (LLM calls write the cache from worker threads), only the
        depth is raised so those writes join the open transaction. The generation moves on at the end:
        whatever was loaded from the rolled-back state must be reloaded.
        """
        with self._lock:
            if self._depth:
                raise RuntimeError("dry_run() must not start inside a transaction")
            self._begin()
            self._depth = 1
        try:
            yield
        finally:
            with self._lock:
                self._depth = 0
                self._conn.execute("ROLLBACK")
                self._writes += 1

    def _begin(self) -> None:
        """Start the outer write transaction; a database another process keeps locked past the busy
        timeout is a :class:`WorkspaceError`, not an internal error."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if not _is_locked(exc):
                raise
            raise self._locked(exc) from exc

    def _locked(self, exc: sqlite3.Error) -> WorkspaceError:
        return WorkspaceError(
            f"{self.path}: the database is locked by another process ({exc}); wait for it to finish "
            "(e.g. a running `kgrag index`) and try again"
        )

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        """Execute one statement; writes must run inside :meth:`transaction`."""
        with self._lock:
            return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._lock:
            self._conn.executemany(sql, rows)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        """Run a read and return all rows (materialised so the lock is not held by an open cursor)."""
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = self.query(sql, params)
        return rows[0][0] if rows else None

    @property
    def generation(self) -> int:
        """Changes when content (not LLM bookkeeping) was committed by this process, or anything by another.

        SQLite's ``data_version`` adds changes made by other connections, so a long-running server sees
        indexing done by a CLI process.
        """
        with self._lock:
            external = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        return self._writes * 1_000_003 + external

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            p = Path(self.path + suffix)
            if p.exists():
                total += p.stat().st_size
        return total

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _is_locked(exc: sqlite3.Error) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED: another connection held the lock past the busy timeout."""
    message = str(exc).lower()
    return "locked" in message or "busy" in message


def _split_statements(ddl: str) -> list[str]:
    """Split a DDL script into statements, keeping trigger bodies (BEGIN ... END;) whole."""
    statements: list[str] = []
    buffer = ""
    for line in ddl.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
