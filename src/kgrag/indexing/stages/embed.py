"""Stage ``embed``: give every chunk text a vector, in blocks, each block committed on its own.

Vectors are keyed by (model, text hash), so this stage is naturally idempotent: after a crash it
embeds only what is still missing, and texts seen before (even in deleted documents) are never
embedded twice.
"""

from __future__ import annotations

import time

from kgrag.core.progress import Progress
from kgrag.core.stages import EMBED, progress_label, timing_key
from kgrag.indexing.context import IndexContext
from kgrag.indexing.report import IndexReport
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store

COMMIT_BLOCK = 256  # texts per committed block; the model batches inside it
MODEL_TIME, STORE_TIME = timing_key(EMBED, "model"), timing_key(EMBED, "store")


class EmbedStage:
    """Embeds the chunk texts that have no vector for the workspace's model yet."""

    name = EMBED

    def run(self, ctx: IndexContext) -> None:
        embed_missing_chunks(ctx.store, ctx.embedder, ctx.config.embedding.batch_size, ctx.progress, ctx.report)


def embed_missing_chunks(
    store: Store, embedder: Embedder, batch_size: int, progress: Progress, report: IndexReport
) -> None:
    """Embed the chunk texts that have no vector for ``embedder.name`` yet (vectors are keyed by it)."""
    missing = store.vectors.missing_chunk_hashes(embedder.name)
    if not missing:
        return
    label = progress_label(EMBED)
    progress.start(label, len(missing))
    # Commit in blocks larger than the model batch: fewer transactions, and the model can sort a block
    # by length to cut padding.
    batch_size = max(batch_size, COMMIT_BLOCK)
    for start in range(0, len(missing), batch_size):
        batch = missing[start : start + batch_size]
        started = time.perf_counter()
        vectors = embedder.embed([text for _, text in batch])
        report.add_time(MODEL_TIME, time.perf_counter() - started)
        started = time.perf_counter()
        store.vectors.put(embedder.name, zip([h for h, _ in batch], vectors, strict=True))
        report.add_time(STORE_TIME, time.perf_counter() - started)
        report.texts_embedded += len(batch)
        progress.advance(label, len(batch))
    progress.finish(label)
