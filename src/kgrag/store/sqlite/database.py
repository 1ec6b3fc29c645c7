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
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from kgrag.core.errors import WorkspaceError
from kgrag.store.sql.generation_pin import GenerationPin

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=30000",
    "PRAGMA temp_store=MEMORY",
    # Deleted rows are overwritten with zeros, as Debian's SQLite does by default: what `kgrag remove` and
    # `kgrag prune` delete leaves the file (and, once checkpointed, the WAL) whatever the build's default.
    "PRAGMA secure_delete=ON",
)

# (message parts, what the user can do) for database errors that are the file's state, not a bug
_FILE_PROBLEMS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("readonly", "read-only"), "the workspace is read-only; make the database file and its directory "
     "writable, or work on a copy"),
    (("malformed", "not a database", "corrupt"), "the database file is damaged; restore it from a backup, "
     "or move it away and rebuild the index with `kgrag init` and `kgrag index`"),
    (("disk is full", "database or disk is full"), "the disk is full; free space and re-run (nothing was "
     "half-written)"),
    (("disk i/o", "unable to open"), "the database file cannot be read or written (moved, deleted or on a "
     "failing disk); check the workspace directory and re-run"),
)  # fmt: skip


class Database:
    """A SQLite connection with transactions, schema setup and a change counter.

    The connection is shared between threads behind a re-entrant lock: SQLite serialises writers
    anyway, and one connection keeps the hot read path free of connection set-up.
    """

    def __init__(self, path: Path | str, schemas: Sequence[str], added: Sequence[tuple[str, str, str]] = ()) -> None:
        """Open ``path`` and create ``schemas``; ``added``: the (table, column, declaration) of columns added
        to tables after their first release, added to an older database's tables in the same transaction."""
        self.path = str(path)
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
        except sqlite3.Error as exc:
            raise WorkspaceError(f"{self.path}: cannot open database ({exc})") from exc
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        self._writes = 0
        self._pin = GenerationPin()
        try:
            for pragma in _PRAGMAS:
                self._conn.execute(pragma)
            with self.transaction():
                for ddl in schemas:
                    for statement in _split_statements(ddl):
                        self._conn.execute(statement)
                self._add_columns(added)
        except WorkspaceError:
            self._conn.close()
            raise
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            if _is_locked(exc):
                raise self._locked(exc) from exc
            if (problem := self._damage(exc)) is not None and "not a database" not in str(exc):
                raise problem from exc
            raise WorkspaceError(
                f"{self.path}: not a usable kgrag database ({exc}); move it away and run `kgrag init`"
            ) from exc

    def _add_columns(self, added: Sequence[tuple[str, str, str]]) -> None:
        """Add each missing column of ``added`` (a database created before it was); rows read NULL in it."""
        present: dict[str, set[str]] = {}  # each table's columns, read once
        for table, column, declaration in added:
            if table not in present:
                present[table] = {str(row[1]) for row in self._conn.execute(f"PRAGMA table_info({table})")}
            if column not in present[table]:
                self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

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
            with self._guard():
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
        with self._guard():
            self._conn.execute("BEGIN IMMEDIATE")

    def _locked(self, exc: sqlite3.Error) -> WorkspaceError:
        return WorkspaceError(
            f"{self.path}: the database is locked by another process ({exc}); wait for it to finish "
            "(e.g. a running `kgrag index`) and try again"
        )

    def _damage(self, exc: sqlite3.Error) -> WorkspaceError | None:
        """A user-fixable state of the file (read-only, damaged, disk full, vanished) as a
        :class:`WorkspaceError` saying what to do; None for anything else (a bug, reported as one)."""
        message = str(exc).lower()
        for needles, advice in _FILE_PROBLEMS:
            if any(needle in message for needle in needles):
                return WorkspaceError(f"{self.path}: {exc}; {advice}")
        return None

    @contextmanager
    def _guard(self) -> Iterator[None]:
        with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                problem = self._locked(exc) if _is_locked(exc) else self._damage(exc)
                if problem is None:
                    raise
                raise problem from exc

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        """Execute one statement; writes must run inside :meth:`transaction`."""
        with self._guard():
            return self._conn.execute(sql, params)

    def changes(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Execute one write and return the number of rows it changed (the shared repositories count so)."""
        return int(self.execute(sql, params).rowcount)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._guard():
            self._conn.executemany(sql, rows)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        """Run a read and return all rows (materialised so the lock is not held by an open cursor)."""
        with self._guard():
            return self._conn.execute(sql, params).fetchall()

    def query_plain(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Like :meth:`query`, as plain tuples: bulk reads (an in-memory index load) skip building a
        ``sqlite3.Row`` per row."""
        with self._guard():
            cursor = self._conn.execute(sql, params)
            cursor.row_factory = None
            return cursor.fetchall()

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = self.query(sql, params)
        return rows[0][0] if rows else None

    @property
    def generation(self) -> int:
        """Changes when content (not LLM bookkeeping) was committed by this process, or anything by another.

        SQLite's ``data_version`` adds changes made by other connections, so a long-running server sees
        indexing done by a CLI process.
        """
        return self._writes * 1_000_003 + self._pin.value(self._data_version)

    def steady_generation(self) -> AbstractContextManager[None]:
        """Inside the block this thread reads ``data_version`` once (:mod:`kgrag.store.sql.generation_pin`);
        writes of this process still change :attr:`generation` at once."""
        return self._pin.hold(self._data_version)

    def _data_version(self) -> int:
        with self._lock:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            p = Path(self.path + suffix)
            if p.exists():
                total += p.stat().st_size
        return total

    def compact(self) -> bool:
        """``VACUUM``, then move the WAL into the file and truncate it: the pages of deleted rows are
        rewritten away. False inside a transaction, or when another connection's lock or open read keeps
        either step from finishing (a running server): the rows are deleted all the same."""
        with self._lock:
            if self._depth:
                return False
            try:
                self._conn.execute("VACUUM")
                busy = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            except sqlite3.OperationalError as exc:
                if _is_locked(exc):
                    return False
                raise self._damage(exc) or exc from exc
            self._writes += 1
            return not busy

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
