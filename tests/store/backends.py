"""The store backends every contract test runs against, and the fixtures that open them.

Registered for the whole suite by ``tests/conftest.py`` (``pytest_plugins``), so any test that asks for
``store`` or ``make_store`` runs once per backend. Adding a backend is one more line in
:data:`BACKENDS` (a server backend names the session fixture that starts its server, see
``tests/store/pg_fixture.py``); the tests under ``tests/store`` are the contract it must pass.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from kgrag.config import StoreConfig
from kgrag.store import Store, open_store


@dataclass(frozen=True)
class StoreBackend:
    """How to open one backend in a test directory, and what differs between backends."""

    id: str
    backend: str  # the store registry name
    url: Callable[[Path], str | None]  # store.url for a fresh store under a test directory
    persistent: bool  # reopening the same directory sees what was written before
    integrity_error: type[Exception]  # what a violated schema constraint raises
    server: str | None = None  # a session fixture giving ``url`` for a backend that needs a running server
    options: dict[str, Any] = field(default_factory=dict)  # further ``[store]`` settings of this variant

    def bound(self, request: pytest.FixtureRequest) -> StoreBackend:
        """This backend with ``url`` taken from its server fixture (which skips if no server can start)."""
        if self.server is None:
            return self
        url: Callable[[Path], str | None] = request.getfixturevalue(self.server)
        return replace(self, url=url)

    def open(self, directory: Path) -> Store:
        directory.mkdir(parents=True, exist_ok=True)
        return open_store(StoreConfig(backend=self.backend, url=self.url(directory), **self.options), directory)


def _pg_integrity_error() -> type[Exception]:
    try:
        from psycopg import IntegrityError
    except ImportError:  # without the driver the backend's server fixture skips its tests
        return sqlite3.IntegrityError
    return IntegrityError


BACKENDS: tuple[StoreBackend, ...] = (
    StoreBackend("sqlite-memory", "sqlite", lambda d: ":memory:", False, sqlite3.IntegrityError),
    StoreBackend("sqlite-file", "sqlite", lambda d: None, True, sqlite3.IntegrityError),
    # BM25 answered by the in-memory copy of the FTS5 index from the first search (the default waits)
    StoreBackend(
        "sqlite-lexical",
        "sqlite",
        lambda d: ":memory:",
        False,
        sqlite3.IntegrityError,
        options={"lexical_index": "memory"},
    ),
    StoreBackend("postgresql", "postgresql", lambda d: None, True, _pg_integrity_error(), server="pg_schema_url"),
)


PERSISTENT: tuple[StoreBackend, ...] = tuple(b for b in BACKENDS if b.persistent)


class StoreMaker:
    """Opens named stores of one backend under a test's directory; closes them all at teardown.

    ``make_store()`` is a fresh store; ``make_store("other")`` another one; calling it again with a used
    name after closing reopens that store (persistent backends see the earlier writes).
    """

    def __init__(self, backend: StoreBackend, root: Path) -> None:
        self.backend = backend
        self._root = root
        self._open: list[Store] = []

    def __call__(self, name: str = "main") -> Store:
        store = self.backend.open(self._root / name)
        self._open.append(store)
        return store

    def close_all(self) -> None:
        for store in self._open:
            store.close()  # closing twice is allowed


@pytest.fixture(params=BACKENDS, ids=[b.id for b in BACKENDS])
def store_backend(request: pytest.FixtureRequest) -> StoreBackend:
    backend: StoreBackend = request.param
    return backend.bound(request)


@pytest.fixture
def make_store(store_backend: StoreBackend, tmp_path: Path) -> Iterator[StoreMaker]:
    maker = StoreMaker(store_backend, tmp_path / "stores")
    yield maker
    maker.close_all()


@pytest.fixture
def store(make_store: StoreMaker) -> Store:
    """A fresh, empty store of each backend in turn."""
    return make_store()


@pytest.fixture(params=PERSISTENT, ids=[b.id for b in PERSISTENT])
def make_persistent_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreMaker]:
    """Like ``make_store``, only over backends that keep data across close and reopen."""
    maker = StoreMaker(request.param.bound(request), tmp_path / "stores")
    yield maker
    maker.close_all()
