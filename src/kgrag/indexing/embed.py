"""Stage 2 of indexing: give every chunk text a vector, in batches, each batch committed on its own.

Vectors are keyed by (model, text hash), so this stage is naturally idempotent: after a crash it
embeds only what is still missing, and texts seen before (even in deleted documents) are never
embedded twice.
"""

from __future__ import annotations

import time

from kgrag.core.progress import Progress
from kgrag.indexing.report import IndexReport
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store

STAGE = "embed"
COMMIT_BLOCK = 256  # texts per committed block; the model batches inside it


def embed_missing_chunks(
    store: Store, embedder: Embedder, batch_size: int, progress: Progress, report: IndexReport
) -> None:
    """Embed the chunk texts that have no vector for ``embedder.name`` yet (vectors are keyed by it)."""
    missing = store.vectors.missing_chunk_hashes(embedder.name)
    if not missing:
        return
    progress.start(STAGE, len(missing))
    # Commit in blocks larger than the model batch: fewer transactions, and the model can sort a block
    # by length to cut padding.
    batch_size = max(batch_size, COMMIT_BLOCK)
    for start in range(0, len(missing), batch_size):
        batch = missing[start : start + batch_size]
        started = time.perf_counter()
        vectors = embedder.embed([text for _, text in batch])
        report.add_time("embed", time.perf_counter() - started)
        started = time.perf_counter()
        store.vectors.put(embedder.name, zip([h for h, _ in batch], vectors, strict=True))
        report.add_time("store", time.perf_counter() - started)
        report.texts_embedded += len(batch)
        progress.advance(STAGE, len(batch))
    progress.finish(STAGE)
