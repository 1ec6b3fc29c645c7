"""Removing documents and everything derived from them (chunks, vectors' references, graph provenance)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from kgrag.graph.build.lifecycle import refresh_graph
from kgrag.graph.build.summarize import ExtractiveSummarizer, Summarizer
from kgrag.graph.build.vectors import ensure_graph_vectors, mark_graph_vectors_stale
from kgrag.indexing.ingest import file_documents
from kgrag.indexing.sync import drop_document
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store


def remove_documents(
    store: Store,
    refs: Sequence[str],
    summarizer: Summarizer | None = None,
    embedder_factory: Callable[[], Embedder] | None = None,
) -> tuple[list[str], list[str]]:
    """Delete documents by id, source or path (a path removes all records of that file).

    Returns (removed sources, refs that matched nothing). Chunks, FTS rows and graph provenance go
    with the document in the same transaction; then the graph drops what has no provenance left and
    re-summarises what lost some (and, given an ``embedder_factory``, re-embeds what changed; the model is
    loaded only then).
    """
    removed: list[str] = []
    unknown: list[str] = []
    with store.transaction():
        for ref in refs:
            matches = _resolve_ref(store, ref)
            if not matches:
                unknown.append(ref)
            for doc_id, source in matches:
                doc = store.documents.get(doc_id)
                if doc is not None:
                    drop_document(store, doc)  # a copy elsewhere takes the document over
                removed.append(source)
    # graph: refresh only when something went; re-embed what the refresh changed
    if removed and refresh_graph(store, summarizer or ExtractiveSummarizer()).changed:
        mark_graph_vectors_stale(store)
        if embedder_factory is not None:
            ensure_graph_vectors(store, embedder_factory())
    return removed, unknown


def _resolve_ref(store: Store, ref: str) -> list[tuple[str, str]]:
    doc = store.documents.get(ref) or store.documents.by_source(ref)
    if doc is not None:
        return [(doc.id, doc.source)]
    return [(d.id, d.source) for d in file_documents(store, str(Path(ref).expanduser().resolve()))]
