"""Every chunk's stored sentence vectors in one in-memory matrix, so a query never splits or reads a passage.

Without it, the first time a query meets a passage, :meth:`QueryContext.sentence_vectors` splits the
passage into sentences, hashes each one and reads their vectors from the store; on Medical (480/56
chunks) that put ``rerank`` with ``embedding.sentence_vectors`` on at 10–12 ms of framework CPU per
query, against ~4 ms with them off, because an evaluation or a server keeps meeting new passages. The
matrix is built once per store generation (a :class:`~kgrag.core.hot.HotValue`): every chunk is split
once, the vectors are read in batches, and a sentence that overlapping chunks share is one row. A query
then gathers its passages' rows by chunk id and takes one matrix product.

Above :data:`MAX_SENTENCE_ROWS` unique sentences the matrix is not built (its memory would grow with the
corpus) and the per-passage reads take over, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from kgrag.documents.records import content_hash
from kgrag.documents.sentences import sentence_texts
from kgrag.store.base import Store

MAX_SENTENCE_ROWS = 200_000
"""Unique sentences held at most: ~300 MB of float32 at MiniLM's 384 dimensions (Medical has 8,653, 13 MB).
A larger corpus falls back to reading each passage's sentences on first use."""
READ_BATCH = 2000
"""Sentence hashes per store read (one ``IN (...)`` list each)."""


@dataclass(frozen=True)
class SentenceMatrix:
    """The unique sentence vectors (rows) and, per chunk id, the rows of its sentences in their order.

    ``complete`` is False when the corpus had more than :data:`MAX_SENTENCE_ROWS` unique sentences: then
    nothing is held and callers read passages one by one."""

    vectors: np.ndarray
    rows: dict[str, np.ndarray] = field(default_factory=dict)
    complete: bool = True

    @classmethod
    def load(cls, store: Store, model: str, max_rows: int | None = None) -> SentenceMatrix:
        """Split every chunk, then read the vectors of its sentences (those the embed stage stored);
        ``max_rows`` defaults to :data:`MAX_SENTENCE_ROWS`."""
        max_rows = MAX_SENTENCE_ROWS if max_rows is None else max_rows
        chunk_hashes: dict[str, list[str]] = {}
        unique: dict[str, int] = {}
        for chunk in store.chunks.iter_all():
            hashes = [content_hash(sentence) for sentence in sentence_texts(chunk.text)]
            chunk_hashes[chunk.id] = hashes
            for text_hash in hashes:
                unique.setdefault(text_hash, len(unique))
            if len(unique) > max_rows:
                return cls(np.zeros((0, 0), dtype=np.float32), complete=False)
        stored = dict(_read_in_batches(store, model, list(unique)))
        row_of = {text_hash: row for row, text_hash in enumerate(stored)}
        vectors = np.vstack(list(stored.values())).astype(np.float32) if stored else np.zeros((0, 0), np.float32)
        rows = {
            chunk_id: np.array([row_of[h] for h in hashes if h in row_of], dtype=np.int64)
            for chunk_id, hashes in chunk_hashes.items()
        }
        return cls(vectors, rows)

    def best_means(self, chunk_ids: Sequence[str], query_vector: np.ndarray, top: int) -> list[float | None]:
        """Per chunk id: the mean cosine of its ``top`` best sentences to ``query_vector`` (fewer when it has
        fewer); None for an id the matrix does not know or whose sentences have no vectors.

        Vectorised over the whole pool (one gather, one product, one sort): a loop of small sorts cost
        ~0.4 ms per 50-passage pool, most of this function's time."""
        empty = np.zeros(0, dtype=np.int64)
        known = [self.rows.get(chunk_id, empty) for chunk_id in chunk_ids]
        lengths = np.fromiter((len(rows) for rows in known), dtype=np.int64, count=len(known))
        if not lengths.any():
            return [None] * len(chunk_ids)
        cosines = self.vectors[np.concatenate(known)] @ query_vector.astype(np.float32, copy=False)
        owner = np.repeat(np.arange(len(known)), lengths)
        ordered = cosines[np.lexsort((cosines, owner))]  # ascending within each passage's run
        running = np.concatenate(([0.0], np.cumsum(ordered, dtype=np.float64)))
        ends = np.cumsum(lengths)
        taken = np.minimum(lengths, top)
        means = (running[ends] - running[ends - taken]) / np.maximum(taken, 1)
        return [float(mean) if length else None for mean, length in zip(means, lengths, strict=True)]


def _read_in_batches(store: Store, model: str, hashes: list[str]) -> Iterable[tuple[str, np.ndarray]]:
    """The stored vectors of ``hashes`` (those that have one), in the order of ``hashes``."""
    for start in range(0, len(hashes), READ_BATCH):
        batch = hashes[start : start + READ_BATCH]
        found = store.vectors.get(model, batch)
        yield from ((text_hash, found[text_hash]) for text_hash in batch if text_hash in found)
