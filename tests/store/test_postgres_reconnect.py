"""A PostgreSQL store whose server goes away and comes back, against a real server that is halted and
started again: while it is down every call is a :class:`StoreUnavailableError` naming ``store.url`` (never a
driver traceback), the store reconnects by itself once it is back, a connection lost inside a transaction
fails that transaction and keeps none of it, and a write is never sent twice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers import add_document
from tests.store.pg_fixture import schema_url

from kgrag.core.errors import StoreUnavailableError
from kgrag.store.postgres import PostgresStore, parse_target
from kgrag.testing.pg_server import PgServer

INSERT = "INSERT INTO documents (id, source, content_hash, status, updated_at) VALUES (%s, 's', 'h', 'chunked', 0)"


@pytest.fixture
def store(pg_restartable: PgServer, tmp_path: Path) -> Iterator[PostgresStore]:
    opened = PostgresStore(parse_target(schema_url(pg_restartable.url, tmp_path), tmp_path))
    add_document(opened, "before", ["kestrel ingests telemetry"])
    yield opened
    opened.close()


def _ids(store: PostgresStore) -> list[str]:
    return sorted(d.id for d in store.documents.list())


def test_a_halted_server_is_a_clear_error_and_the_store_reconnects_once_it_is_back(
    pg_restartable: PgServer, store: PostgresStore
) -> None:
    pg_restartable.halt()
    try:
        for _ in range(2):  # the first call meets the lost connection, the next one a refused connect
            with pytest.raises(StoreUnavailableError) as caught:
                store.documents.list()
            message = str(caught.value)
            assert message.startswith("store.url postgresql://kgrag:***@127.0.0.1:") and "\n" not in message
            assert pg_restartable.password not in message
    finally:
        pg_restartable.resume()
    assert _ids(store) == ["before"]  # no reopening: the store reconnected on its own
    assert [h.id for h in store.chunks.search_bm25("telemetry", 5)] == ["before-c0"]  # session settings kept
    add_document(store, "after", ["heron nests by the river"])
    assert _ids(store) == ["after", "before"]


def test_a_server_restarted_while_the_store_was_idle_costs_no_request(
    pg_restartable: PgServer, store: PostgresStore
) -> None:
    pg_restartable.halt()
    pg_restartable.resume()
    assert _ids(store) == ["before"]  # a read is repeated on a new connection
    pg_restartable.halt()
    pg_restartable.resume()
    add_document(store, "after", ["heron nests by the river"])  # a transaction's BEGIN is too
    assert _ids(store) == ["after", "before"]


def test_a_connection_lost_inside_a_transaction_fails_it_and_keeps_nothing(
    pg_restartable: PgServer, store: PostgresStore
) -> None:
    with pytest.raises(StoreUnavailableError), store.db.transaction():
        store.db.execute(INSERT, ("lost-mid-way",))
        pg_restartable.halt()
        pg_restartable.resume()
        store.db.execute(INSERT, ("lost-after",))  # never run on a new connection outside the transaction
    with pytest.raises(StoreUnavailableError), store.db.transaction():
        store.db.execute(INSERT, ("lost-before-commit",))
        pg_restartable.halt()
        pg_restartable.resume()  # COMMIT meets the lost connection: the transaction is not committed elsewhere
    assert _ids(store) == ["before"]
    assert not store.db.in_transaction


def test_a_write_outside_a_transaction_is_not_sent_twice(pg_restartable: PgServer, store: PostgresStore) -> None:
    pg_restartable.halt()
    pg_restartable.resume()
    with pytest.raises(StoreUnavailableError, match="lost the connection"):
        store.db.execute(INSERT, ("autocommit",))  # it may have been applied before the loss: not repeated
    store.db.execute(INSERT, ("autocommit",))  # the next statement reconnects
    assert _ids(store) == ["autocommit", "before"]


def test_a_run_holding_the_indexing_lock_does_not_reconnect(pg_restartable: PgServer, store: PostgresStore) -> None:
    """The lock is a session lock on its own connection: a restart ends it, and a run that went on on a new
    connection would index beside another one. It stops instead; after the block the store reconnects."""
    from kgrag.core.progress import SilentProgress

    with store.indexing_lock(SilentProgress()):
        pg_restartable.halt()
        pg_restartable.resume()
        with pytest.raises(StoreUnavailableError, match="held the schema's indexing lock"):
            store.documents.list()
    assert _ids(store) == ["before"]


def test_a_slow_failed_reconnect_is_not_tried_again_at_once(
    pg_restartable: PgServer, store: PostgresStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host that drops packets makes a connect wait its timeout; every request would wait it in turn."""
    from kgrag.store.postgres import database

    tries: list[int] = []

    def unreachable() -> None:
        tries.append(1)
        raise StoreUnavailableError("store.url …: cannot connect to PostgreSQL (timeout expired)")

    monkeypatch.setattr(database, "RECONNECT_SLOW_S", -1.0)  # every failure counts as slow here
    monkeypatch.setattr(store.db, "_reconnect", unreachable)
    pg_restartable.halt()
    try:
        for _ in range(3):
            with pytest.raises(StoreUnavailableError, match="timeout expired"):
                store.documents.list()
    finally:
        pg_restartable.resume()
    assert len(tries) == 1  # the later calls answered with the first failure, without a new connect
