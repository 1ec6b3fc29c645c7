"""Graph-test fixtures: an in-memory store with two documents of chunks, and a summariser."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.graph.graph_fakes import ChunkFactory

from kgrag.graph.summarize import ExtractiveSummarizer
from kgrag.store.records import ChunkRecord, DocumentRecord, DocumentStatus
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
        store.documents.upsert(
            DocumentRecord(
                id=doc_id, source=f"/src/{doc_id}", title=doc_id, content_hash="h", status=DocumentStatus.EMBEDDED
            )
        )
        chunks = [
            ChunkRecord(
                id=f"{doc_id}-c{i}",
                doc_id=doc_id,
                ord=i,
                char_start=0,
                char_end=len(t),
                text=t,
                n_tokens=len(t.split()),
                text_hash=f"{doc_id}-{i}",
            )
            for i, t in enumerate(texts)
        ]
        store.chunks.replace_for_document(doc_id, chunks)
        return [c.id for c in chunks]

    return add


@pytest.fixture
def summarizer() -> ExtractiveSummarizer:
    return ExtractiveSummarizer(max_tokens=40)
