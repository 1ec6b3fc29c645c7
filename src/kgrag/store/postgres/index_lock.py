"""The PostgreSQL store's indexing lock: a session-level advisory lock on the server, keyed by the schema.

Two workspace directories reach the same data whenever their ``store.url`` names the same schema (two
machines, or two ``-w`` paths), so a file in a directory cannot keep their indexers apart; the server
can. The lock is ``pg_advisory_lock`` on a key derived from the schema name (advisory locks are already
per database), taken on a connection of its own that lives exactly as long as the run: the store's
working connection runs transactions, and a session lock must outlive them all. Ending the session
releases the lock, so an indexer that exits, crashes or is killed (``kill -9``: its socket closes) frees it
at once; a machine that vanishes frees it once TCP keepalives notice (about two minutes, set below).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from kgrag.core.progress import Progress
from kgrag.store.index_lock import wait_noted
from kgrag.store.postgres.database import connect
from kgrag.store.postgres.url import PgTarget

# Session settings of the lock's connection: no server default may end the wait or the idle session that
# holds the lock (statement/lock/idle timeouts), keepalives notice a dead client machine, and psql's
# pg_stat_activity names the session. Settings the server does not know (older versions) are skipped.
_SESSION = (
    ("statement_timeout", "0"),
    ("lock_timeout", "0"),
    ("idle_session_timeout", "0"),
    ("tcp_keepalives_idle", "60"),
    ("tcp_keepalives_interval", "10"),
    ("tcp_keepalives_count", "6"),
    ("application_name", "kgrag indexing lock"),
)
_CONFIGURE = (
    "SELECT set_config(v.name, v.value, false) FROM (VALUES "
    + ", ".join("(%s, %s)" for _ in _SESSION)
    + ") AS v(name, value) JOIN pg_settings s ON s.name = v.name"
)


def lock_key(schema: str) -> int:
    """The advisory lock key of ``schema``: 64 bits of a hash, the same in every process and version."""
    digest = hashlib.blake2b(f"kgrag-index:{schema}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@contextmanager
def advisory_lock(target: PgTarget, progress: Progress) -> Iterator[None]:
    """Hold the schema's indexing lock for the block (waiting with the usual note while another holds it)."""
    conn = connect(target)
    try:
        conn.execute(_CONFIGURE, [value for pair in _SESSION for value in pair])
        key = lock_key(target.schema)

        def try_acquire() -> bool:
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            return bool(row and row[0])

        wait_noted(try_acquire, lambda: conn.execute("SELECT pg_advisory_lock(%s)", (key,)), progress)
        yield
    finally:
        conn.close()  # ending the session releases the lock
