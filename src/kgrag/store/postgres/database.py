"""One PostgreSQL connection, scoped to the workspace's schema: transactions, dry runs and a generation.

The repositories share this object exactly as the SQLite ones share :class:`kgrag.store.sqlite.Database`:
writes happen inside :meth:`PgDatabase.transaction` (``BEGIN`` … ``COMMIT``; nested calls are savepoints),
so a crash or a lost connection leaves the whole unit of work or nothing. One connection behind a
re-entrant lock serves every thread of the process: the server answers queries from a thread pool, and
one connection keeps a query free of connection set-up; PostgreSQL itself isolates other processes.

PostgreSQL has no ``data_version``, so the write generation lives in the database: every committed
content transaction increments ``kgrag_generation.n`` in the same transaction, which makes a commit by
another process (a CLI ``kgrag index`` while ``kgrag serve`` runs) visible to this one. LLM cache,
ledger and evaluation writes are bookkeeping and leave it alone (``content=False``).

A lost connection (the server stopped or restarted) fails the statement that meets it with a
:class:`StoreUnavailableError`; the next statement outside a transaction opens a new connection with the
same session settings, so a long-running process recovers once the server is back. Only a statement that
is safe to send twice (``BEGIN``, a ``SELECT``) is repeated on the new connection at once; a write or
anything inside a transaction fails its request, since it may have been applied before the loss.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from kgrag.core.errors import StoreUnavailableError, WorkspaceError
from kgrag.store.postgres.migrations import apply_migrations
from kgrag.store.postgres.url import PgTarget
from kgrag.store.sql.generation_pin import GenerationPin

if TYPE_CHECKING:  # psycopg is an optional extra, imported when a PostgreSQL store is opened
    import psycopg

_UNREACHABLE = (
    "check that the server runs and accepts connections from this host, that the user, password and "
    "database in store.url are right (or set store.url / KGRAG_STORE to another server)"
)
_CONNECT_TIMEOUT_S = 10
RECONNECT_BACKOFF_S = 5.0
"""After a slow failed reconnect, how long the store answers with that failure at once instead of trying again
(a host that drops packets would make every request wait the connect timeout, one behind the other)."""
RECONNECT_SLOW_S = 1.0
"""A failed reconnect that took longer than this starts the back-off (a refused one takes milliseconds)."""
_REPEATABLE = ("SELECT", "BEGIN")  # statements that change nothing when sent twice
T = TypeVar("T")


def _psycopg() -> Any:
    """The driver, imported on first use so a SQLite-only install never needs it."""
    try:
        import psycopg
    except ImportError as exc:
        raise WorkspaceError(
            "store.backend = postgresql needs the optional extra: pip install 'kgrag[postgres]'"
        ) from exc
    return psycopg


def connect(target: PgTarget) -> psycopg.Connection[Any]:
    """An autocommit connection to ``target``'s server; failing to connect is a
    :class:`StoreUnavailableError` naming ``store.url`` (password masked) and what to check."""
    driver = _psycopg()
    try:
        conn: psycopg.Connection[Any] = driver.connect(
            target.conninfo, autocommit=True, connect_timeout=_CONNECT_TIMEOUT_S
        )
    except driver.Error as exc:
        raise StoreUnavailableError(
            f"store.url {target.display}: cannot connect to PostgreSQL ({_first_line(exc)}); {_UNREACHABLE}"
        ) from exc
    return conn


class PgDatabase:
    """A connection with the workspace's schema on its search path, transactions and a change counter."""

    def __init__(self, target: PgTarget, *, migrate_upto: int | None = None) -> None:
        """Connect and bring the schema up to date (``migrate_upto`` stops earlier: upgrade tests)."""
        self.target = target
        self._lock = threading.RLock()
        self._depth = 0
        self._pin = GenerationPin()
        self._local = 0  # savepoint releases and dry-run ends: changes only this process sees
        self._closed = False
        self._pinned = 0  # blocks under no_reconnect()
        self._failed_until = 0.0  # a failed reconnect is not tried again before this (monotonic seconds)
        self._failure: StoreUnavailableError | None = None
        self._conn = self._connect()
        self._search_path = ""
        try:
            apply_migrations(self, target.schema, migrate_upto)
            self._search_path = str(self.scalar("SELECT current_setting('search_path')"))
            _vector_session(self._conn)
        except BaseException:
            self._conn.close()
            raise

    def _connect(self) -> psycopg.Connection[Any]:
        conn = connect(self.target)
        _drop_nul_characters(conn)
        return conn

    def _lost(self) -> bool:
        return bool(self._conn.closed or self._conn.broken)

    @contextmanager
    def no_reconnect(self) -> Iterator[None]:
        """For the block, a lost connection is not replaced: what holds a session lock on another connection
        of the same server (the indexing lock) must stop when the server restarts, since the lock ended."""
        with self._lock:
            self._pinned += 1
        try:
            yield
        finally:
            with self._lock:
                self._pinned -= 1

    def _reconnect_unless_pinned(self) -> None:
        if self._pinned:
            raise StoreUnavailableError(
                f"store.url {self.target.display}: lost the connection to PostgreSQL while this run held the "
                "schema's indexing lock, which ended with it; re-run the command once the server answers"
            )
        now = time.monotonic()
        if now < self._failed_until and self._failure is not None:
            raise StoreUnavailableError(str(self._failure))  # a slow try a moment ago: answer at once
        try:
            self._reconnect()
        except StoreUnavailableError as exc:
            if time.monotonic() - now > RECONNECT_SLOW_S:  # a refused connect fails at once: no need to wait
                self._failed_until, self._failure = time.monotonic() + RECONNECT_BACKOFF_S, exc
            raise
        self._failed_until, self._failure = 0.0, None

    def _reconnect(self) -> None:
        """A new connection in place of a lost one, with the schema's search path and pgvector's settings."""
        conn = self._connect()
        try:
            conn.execute("SELECT set_config('search_path', %s, false)", (self._search_path,))
            _vector_session(conn)
        except _psycopg().Error as exc:
            conn.close()
            raise StoreUnavailableError(
                f"store.url {self.target.display}: cannot set up a new connection ({_first_line(exc)}); {_UNREACHABLE}"
            ) from exc
        self._conn.close()
        self._conn = conn

    # -- transactions ----------------------------------------------------------------------------
    @contextmanager
    def transaction(self, *, content: bool = True) -> Iterator[None]:
        """Run the block atomically; nested blocks are savepoints inside the outer transaction.

        ``content=False`` marks bookkeeping writes: they do not advance :attr:`generation`.
        """
        with self._lock:
            depth = self._depth
            name = f"sp{depth}"
            self.execute("BEGIN" if depth == 0 else f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
                self._finish(depth, name, content)
            except BaseException:
                self._undo(depth, name)
                raise
            finally:
                self._depth = depth

    def _finish(self, depth: int, name: str, content: bool) -> None:
        """Commit the outer block (advancing the generation for content) or release a savepoint. The depth
        still counts the block meanwhile, so a connection lost before ``COMMIT`` is never replaced under it."""
        if depth == 0:
            if content:
                self.execute("UPDATE kgrag_generation SET n = n + 1")
            self.execute("COMMIT")
        else:
            self.execute(f"RELEASE SAVEPOINT {name}")
            self._local += int(content)

    def _undo(self, depth: int, name: str) -> None:
        """Roll back the failed block; a connection that died meanwhile has nothing left to roll back."""
        if self._lost():
            return
        if depth == 0:
            self.execute("ROLLBACK")
        else:
            self.execute(f"ROLLBACK TO SAVEPOINT {name}")
            self.execute(f"RELEASE SAVEPOINT {name}")

    @contextmanager
    def dry_run(self) -> Iterator[None]:
        """An outer transaction that is always rolled back (see :meth:`kgrag.store.base.Store.dry_run`)."""
        with self._lock:
            if self._depth:
                raise RuntimeError("dry_run() must not start inside a transaction")
            self.execute("BEGIN")
            self._depth = 1
        try:
            yield
        finally:
            with self._lock:
                self._depth = 0
                if not self._lost():
                    self.execute("ROLLBACK")
                self._local += 1

    @property
    def lock(self) -> threading.RLock:
        """Held by callers that need two statements back to back on this connection."""
        return self._lock

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    # -- statements ------------------------------------------------------------------------------
    @contextmanager
    def _guard(self) -> Iterator[psycopg.Connection[Any]]:
        """Hold the lock, reconnect a lost connection between transactions, and turn losing it during the
        block into a :class:`StoreUnavailableError` saying what to do."""
        driver = _psycopg()
        with self._lock:
            if self._closed:
                raise WorkspaceError(f"store.url {self.target.display}: the store is closed")
            if self._lost() and self._depth == 0:
                self._reconnect_unless_pinned()
            try:
                yield self._conn
            except driver.OperationalError as exc:
                if not self._lost():
                    raise
                raise StoreUnavailableError(
                    f"store.url {self.target.display}: lost the connection to PostgreSQL ({_first_line(exc)}); "
                    "a transaction it was in was rolled back (one lost at its COMMIT may have been committed) — "
                    "check the server and re-run"
                ) from exc

    def _run(self, sql: Any, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``work`` on the connection; once more on a new connection when the first was found lost and the
        statement is safe to repeat outside a transaction (a connection dropped while idle is only noticed
        when the next statement is sent)."""
        with self._lock:
            seemed_open = not self._lost()
            try:
                with self._guard() as conn:
                    return work(conn)
            except StoreUnavailableError:
                if not seemed_open or self._depth or not _repeatable(sql):
                    raise
            with self._guard() as conn:
                return work(conn)

    def execute(self, sql: Any, params: Sequence[Any] | dict[str, Any] | None = None) -> int:
        """Run one statement (or a parameterless script); returns the number of rows it changed."""
        return self._run(sql, lambda conn: int(conn.execute(sql, params).rowcount))

    def executemany(self, sql: Any, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self._guard() as conn, conn.cursor() as cursor:
            cursor.executemany(sql, rows)

    def query(self, sql: Any, params: Sequence[Any] | dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """Run a read and return all rows (materialised, so the lock is not held by an open cursor)."""
        return self._run(sql, lambda conn: list(conn.execute(sql, params).fetchall()))

    def scalar(self, sql: Any, params: Sequence[Any] | dict[str, Any] | None = None) -> Any:
        rows = self.query(sql, params)
        return rows[0][0] if rows else None

    # -- facts -----------------------------------------------------------------------------------
    @property
    def generation(self) -> int:
        """Changes when content was committed by any process, or a savepoint/dry run ended here."""
        return self._pin.value(self._committed) * 1_000_003 + self._local

    def steady_generation(self) -> AbstractContextManager[None]:
        """Inside the block this thread reads the committed count once
        (:mod:`kgrag.store.sql.generation_pin`); meant for read-only runs such as one query."""
        return self._pin.hold(self._committed)

    def _committed(self) -> int:
        with self._lock:
            return int(self.scalar("SELECT n FROM kgrag_generation") or 0)

    def size_bytes(self) -> int:
        """Bytes on disk of the schema's tables, their indexes and TOAST data."""
        total = self.scalar(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind IN ('r', 'm')",
            (self.target.schema,),
        )
        return int(total or 0)

    def compact(self) -> bool:
        """``VACUUM FULL`` of the schema's tables: each is rewritten without its dead rows (under an exclusive
        lock, so queries wait meanwhile). False inside a transaction or while another session holds a table
        past the lock timeout; the rows are deleted all the same."""
        from psycopg import errors, sql

        from kgrag.store.tables import TABLES

        with self._lock:
            if self._depth:
                return False
            try:
                self.execute("SET lock_timeout = '10s'")
                for table in TABLES:
                    self.execute(sql.SQL("VACUUM FULL {table}").format(table=sql.Identifier(table.name)))
            except errors.LockNotAvailable:
                return False
            finally:
                self.execute("RESET lock_timeout")
            return True

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()


def _repeatable(sql: Any) -> bool:
    """Whether ``sql`` changes nothing when sent twice: ``BEGIN`` or a ``SELECT`` given as text."""
    return isinstance(sql, str) and sql.lstrip()[:6].upper().startswith(_REPEATABLE)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _vector_session(conn: psycopg.Connection[Any]) -> None:
    """pgvector's adapters and settings on ``conn`` (the schema's search path, holding the extension, is set)."""
    from pgvector.psycopg import register_vector

    register_vector(conn)
    conn.execute("SELECT '[1]'::vector")  # loads pgvector, so its settings below are known
    conn.execute("SET hnsw.iterative_scan = relaxed_order")


def _drop_nul_characters(conn: psycopg.Connection[Any]) -> None:
    """Make the connection drop NUL characters from strings it sends.

    PostgreSQL ``text`` cannot hold U+0000 (SQLite can), and a stray NUL in a document or an LLM reply
    must not fail a whole indexing transaction; everything else is sent unchanged.
    """
    from psycopg.types.string import StrBinaryDumper, StrDumperUnknown

    class NulFreeBinary(StrBinaryDumper):
        def dump(self, obj: str) -> Any:
            return super().dump(obj.replace("\x00", "") if "\x00" in obj else obj)

    class NulFreeText(StrDumperUnknown):
        def dump(self, obj: str) -> Any:
            return super().dump(obj.replace("\x00", "") if "\x00" in obj else obj)

    conn.adapters.register_dumper(str, NulFreeBinary)
    conn.adapters.register_dumper(str, NulFreeText)
