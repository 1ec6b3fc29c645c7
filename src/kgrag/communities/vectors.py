"""Report embeddings: stored like every other vector, keyed by (model, hash of the report text), so a
report that did not change is never embedded again and an inherited report shares its child's vector."""

from __future__ import annotations

from kgrag.core.community_records import CommunityReport
from kgrag.documents import content_hash
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store

EMBED_BATCH = 128


def report_hash(report: CommunityReport) -> str:
    return content_hash(report.text)


def embed_reports(store: Store, embedder: Embedder, batch_size: int = EMBED_BATCH) -> int:
    """Embed report texts without a vector for ``embedder``; returns how many were embedded. Batches are
    committed one by one, so an interrupted run resumes."""
    texts = {report_hash(r): r.text for r in store.communities.reports()}
    if not texts:
        return 0
    present = store.vectors.get(embedder.name, list(texts))
    missing = [(h, t) for h, t in texts.items() if h not in present]
    for start in range(0, len(missing), batch_size):
        batch = missing[start : start + batch_size]
        vectors = embedder.embed([t for _, t in batch])
        store.vectors.put(embedder.name, zip([h for h, _ in batch], vectors, strict=True))
    return len(missing)
