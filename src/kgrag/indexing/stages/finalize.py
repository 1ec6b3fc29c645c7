"""Stage ``finalize``: set each document's status from what is actually done for it.

A status must be true whichever pipeline ran: ``fast`` writes chunks but no vectors, ``no-graph`` embeds
but does not extract. So the status is derived from facts, not from which stages ran:

* ``chunked``: some chunk text has no vector for the workspace's embedding model;
* ``embedded``: all vectors are there but the configured extractor still has chunks to extract (or
  failed on some, to be retried);
* ``indexed``: everything the workspace is configured to build exists for the document.

A later ``standard`` run completes what a lighter one left, and this stage then advances the statuses.
"""

from __future__ import annotations

from kgrag.core.records import DocumentStatus
from kgrag.core.stages import FINALIZE
from kgrag.indexing.context import IndexContext
from kgrag.store.base import Store

_LIVE = (DocumentStatus.CHUNKED, DocumentStatus.EMBEDDED, DocumentStatus.INDEXED)


class FinalizeStage:
    """Advances (or, when something is missing, holds back) document statuses; failed ones stay failed."""

    name = FINALIZE

    def run(self, ctx: IndexContext) -> None:
        extractor = ctx.extractor.name if ctx.extractor is not None else None
        finalize_statuses(ctx.store, extractor, ctx.embedder.name)
        ctx.note_problems()  # any a stage left unshown; the rest were shown as they happened


def documents_lacking_vectors(store: Store, model: str) -> set[str]:
    """Ids of documents with a chunk text that has no vector for ``model`` (cheap when none lacks one)."""
    missing = {text_hash for text_hash, _ in store.vectors.missing_chunk_hashes(model)}
    if not missing:
        return set()
    return {
        doc.id
        for status in _LIVE
        for doc in store.documents.list(status)
        if any(chunk.text_hash in missing for chunk in store.chunks.for_document(doc.id))
    }


def finalize_statuses(store: Store, extractor_name: str | None = None, embedding_model: str | None = None) -> None:
    """Set live documents to CHUNKED (vectors missing for ``embedding_model``), EMBEDDED (chunks still to
    extract by ``extractor_name``, or failed) or INDEXED (nothing missing). Without a model name vectors
    are not checked; without an extractor name the graph is not."""
    lacking = documents_lacking_vectors(store, embedding_model) if embedding_model else set()
    pending = set(store.graph.documents_needing_extraction(extractor_name)) if extractor_name else set()
    statuses = _LIVE if lacking or pending else _LIVE[:2]  # INDEXED can only move back if something lacks
    with store.transaction():
        for status in statuses:
            for doc in store.documents.list(status):
                if doc.id in lacking:
                    target = DocumentStatus.CHUNKED
                elif doc.id in pending:
                    target = DocumentStatus.EMBEDDED
                else:
                    target = DocumentStatus.INDEXED
                if target != doc.status:
                    store.documents.set_status(doc.id, target)
