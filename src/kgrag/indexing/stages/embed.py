"""Stage ``embed``: give every chunk text a vector, committed at least every ``COMMIT_SECONDS``.

Vectors are keyed by (model, text hash), so this stage is naturally idempotent: after a crash it
embeds only what is still missing, and texts seen before (even in deleted documents) are never
embedded twice. With ``embedding.sentence_vectors`` on (``auto``: chunks larger than the embedder's
window), every sentence of every chunk gets a vector
the same way (the ``fused`` reranker scores passages by their best-matching sentences with them).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from kgrag.core.progress import Progress
from kgrag.core.stages import EMBED, progress_label, timing_key
from kgrag.documents.records import content_hash
from kgrag.documents.sentences import sentence_texts
from kgrag.indexing.compute import LocalCompute, StageCompute, timed_blocks
from kgrag.indexing.context import IndexContext
from kgrag.indexing.report import IndexReport
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store
from kgrag.store.vector_reads import iter_stored_vectors

COMMIT_SECONDS = 2.0  # commit at least this often: a kill loses seconds of embedding, not the stage
MODEL_TIME, STORE_TIME = timing_key(EMBED, "model"), timing_key(EMBED, "store")
SENTENCES_LABEL = f"{progress_label(EMBED)} sentences"


@dataclass
class EmbedReport:
    """The ``embed`` stage's count: chunk (and sentence) texts given a vector this run."""

    texts_embedded: int = 0


class EmbedStage:
    """Embeds the chunk texts that have no vector for the workspace's model yet."""

    name = EMBED
    report_model = EmbedReport

    def run(self, ctx: IndexContext) -> None:
        batch_size = ctx.config.embedding.batch_size
        embed_missing_chunks(ctx.store, ctx.embedder, batch_size, ctx.progress, ctx.report, ctx.compute)
        if ctx.embeds_sentences():
            sentences = missing_sentences(ctx.store, ctx.embedder.name)
            embed_and_store(
                ctx.store, ctx.embedder, sentences, batch_size, ctx.progress, ctx.report, ctx.compute, SENTENCES_LABEL
            )


def embed_missing_chunks(
    store: Store,
    embedder: Embedder,
    batch_size: int,
    progress: Progress,
    report: IndexReport,
    compute: StageCompute | None = None,
) -> None:
    """Embed the chunk texts that have no vector for ``embedder.name`` yet (vectors are keyed by it);
    the model runs where ``compute`` puts it (inline by default)."""
    missing = store.vectors.missing_chunk_hashes(embedder.name)
    embed_and_store(store, embedder, missing, batch_size, progress, report, compute, progress_label(EMBED))


def missing_sentences(store: Store, model: str) -> list[tuple[str, str]]:
    """(text hash, text) of the chunk sentences with no vector for ``model`` yet, one per hash, in chunk
    order. Reads every chunk: sentences are not rows of their own, so the store cannot tell."""
    sentences: dict[str, str] = {}
    for chunk in store.chunks.iter_all():
        for sentence in sentence_texts(chunk.text):
            sentences.setdefault(content_hash(sentence), sentence)
    stored = {text_hash for text_hash, _ in iter_stored_vectors(store, model, list(sentences))}
    return [(h, text) for h, text in sentences.items() if h not in stored]


def embed_and_store(
    store: Store,
    embedder: Embedder,
    missing: list[tuple[str, str]],
    batch_size: int,
    progress: Progress,
    report: IndexReport,
    compute: StageCompute | None,
    label: str,
) -> None:
    """Embed the texts of ``missing`` ((hash, text) pairs) and store their vectors under their hashes."""
    if not missing:
        return
    progress.start(label, len(missing))
    # Vectors arrive in blocks (one model batch inline, an engine's batch otherwise) and are committed
    # once COMMIT_SECONDS of work has gathered (a transaction per batch would cost little, but a block
    # keeps the write count low on fast embedders).
    texts = [text for _, text in missing]
    blocks = timed_blocks((compute or LocalCompute()).embed(embedder, texts, batch_size), report, MODEL_TIME)
    pending: list[tuple[str, np.ndarray]] = []
    last_commit = time.perf_counter()
    done = 0
    while done < len(missing):
        vectors = next(blocks)
        pending.extend(zip([h for h, _ in missing[done : done + len(vectors)]], vectors, strict=True))
        done += len(vectors)
        if time.perf_counter() - last_commit >= COMMIT_SECONDS or done >= len(missing):
            started = time.perf_counter()
            store.vectors.put(embedder.name, pending)
            report.add_time(STORE_TIME, time.perf_counter() - started)
            report.stage(EMBED, EmbedReport).texts_embedded += len(pending)
            progress.advance(label, len(pending))
            pending, last_commit = [], time.perf_counter()
    progress.finish(label)
