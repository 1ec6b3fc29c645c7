"""Graph-test fixtures: an in-memory store with two documents of chunks, and a summariser."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.graph.graph_fakes import ChunkFactory
from tests.helpers import add_document

from kgrag.core.records import DocumentStatus
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.store.sqlite import SQLiteStore


@pytest.fixture
def store() -> Iterator[SQLiteStore]:
    s = SQLiteStore(":memory:")
    yield s
    s.close()


@pytest.fixture
def add_doc(store: SQLiteStore) -> ChunkFactory:
    """``add_doc("d1", [text, ...])`` stores a document with one chunk per text; returns the chunk ids."""

    def add(doc_id: str, texts: list[str]) -> list[str]:
        return add_document(store, doc_id, texts, DocumentStatus.EMBEDDED)

    return add


@pytest.fixture
def summarizer() -> ExtractiveSummarizer:
    return ExtractiveSummarizer(max_tokens=40)
