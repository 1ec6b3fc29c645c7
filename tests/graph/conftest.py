"""Graph-test fixtures: a store (each backend, from tests/store/backends.py) with documents of chunks,
and a summariser."""

from __future__ import annotations

import pytest
from tests.graph.graph_fakes import ChunkFactory
from tests.helpers import add_document

from kgrag.core.records import DocumentStatus
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.store import Store


@pytest.fixture
def add_doc(store: Store) -> ChunkFactory:
    """``add_doc("d1", [text, ...])`` stores a document with one chunk per text; returns the chunk ids."""

    def add(doc_id: str, texts: list[str]) -> list[str]:
        return add_document(store, doc_id, texts, DocumentStatus.EMBEDDED)

    return add


@pytest.fixture
def summarizer() -> ExtractiveSummarizer:
    return ExtractiveSummarizer(max_tokens=40)
