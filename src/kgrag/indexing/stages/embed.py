"""Stage ``embed``: give every chunk text a vector, committed at least every ``COMMIT_SECONDS``.

Vectors are keyed by (model, text hash), so this stage is naturally idempotent: after a crash it
embeds only what is still missing, and texts seen before (even in deleted documents) are never
embedded twice.
"""

from __future__ import annotations

import time

import numpy as np

from kgrag.core.progress import Progress
from kgrag.core.stages import EMBED, progress_label, timing_key
from kgrag.indexing.context import IndexContext
from kgrag.indexing.report import IndexReport
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store

COMMIT_SECONDS = 2.0  # commit at least this often: a kill loses seconds of embedding, not the stage
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
    # One model batch per step; vectors are committed once COMMIT_SECONDS of work has gathered (a
    # transaction per batch would cost little, but a block keeps the write count low on fast embedders).
    block = max(1, batch_size)
    pending: list[tuple[str, np.ndarray]] = []
    last_commit = time.perf_counter()
    for start in range(0, len(missing), block):
        batch = missing[start : start + block]
        started = time.perf_counter()
        vectors = embedder.embed([text for _, text in batch])
        report.add_time(MODEL_TIME, time.perf_counter() - started)
        pending.extend(zip([h for h, _ in batch], vectors, strict=True))
        if time.perf_counter() - last_commit >= COMMIT_SECONDS or start + block >= len(missing):
            started = time.perf_counter()
            store.vectors.put(embedder.name, pending)
            report.add_time(STORE_TIME, time.perf_counter() - started)
            report.texts_embedded += len(pending)
            progress.advance(label, len(pending))
            pending, last_commit = [], time.perf_counter()
    progress.finish(label)
