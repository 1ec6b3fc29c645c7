"""Store contract tests: every test here runs once per backend in ``tests/store/backends.py`` (the
``store`` fixture), so a new backend is held to exactly what SQLite does. SQLite-only behaviour (WAL,
locking, damaged files, ``data_version``) lives in ``test_sqlite_only.py``."""

from __future__ import annotations

import pytest
from tests.graph.graph_fakes import ChunkFactory
from tests.helpers import add_document

from kgrag.core.records import DocumentStatus
from kgrag.store import Store


@pytest.fixture
def add_doc(store: Store) -> ChunkFactory:
    """``add_doc("d1", [text, ...])`` stores an embedded document with one chunk per text; returns chunk ids."""

    def add(doc_id: str, texts: list[str]) -> list[str]:
        return add_document(store, doc_id, texts, DocumentStatus.EMBEDDED)

    return add
