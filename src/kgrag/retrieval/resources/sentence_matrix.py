"""Every chunk's stored sentence vectors in one in-memory matrix, so a query never splits or reads a passage.

Without it, the first time a query meets a passage, :meth:`QueryContext.sentence_vectors` splits the
passage into sentences, hashes each one and reads their vectors from the store; an evaluation or a server
keeps meeting new passages, so that work made ``rerank`` with ``embedding.sentence_vectors`` on cost
several times the framework CPU of it off (docs/results/design-measurements.md). The
matrix is built once per store generation (a :class:`~kgrag.core.hot.HotValue`): every chunk is split
once, the vectors are read in batches, and a sentence that overlapping chunks share is one row. A query
then scores every chunk at once (one product with all sentence vectors), and its dense search and its
reranker look their chunks up in that (:meth:`QueryContext.sentence_means`).

Above :data:`MAX_SENTENCE_ROWS` unique sentences the matrix is not built (its memory would grow with the
corpus) and the per-passage reads take over.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kgrag.core.dense_index import without_negligible
from kgrag.documents.records import content_hash
from kgrag.documents.sentences import sentence_texts
from kgrag.store.base import Store
from kgrag.store.vector_reads import iter_stored_vectors

MAX_SENTENCE_ROWS = 100_000
"""Unique sentences held at most: ~150 MB of float32 at MiniLM's 384 dimensions.
Scoring every chunk's sentences reads the whole matrix once per query, like an exact dense search over as
many chunks (docs/results/design-measurements.md), so a larger corpus falls back to reading each
passage's sentences on first use and dense search keeps to chunk vectors."""
TOP_SENTENCES = 2
"""A chunk's sentence score is the mean cosine of this many best sentences: the mean of two recalls more than
the single best (docs/results/design-measurements.md), as a second match is less often a coincidence."""


@dataclass(frozen=True, eq=False)
class SentenceMatrix:
    """The unique sentence vectors (rows) and, per chunk id, the rows of its sentences in their order.

    ``complete`` is False when the corpus had more than :data:`MAX_SENTENCE_ROWS` unique sentences: then
    nothing is held and callers read passages one by one."""

    vectors: np.ndarray
    rows: dict[str, np.ndarray] = field(default_factory=dict)
    complete: bool = True
    chunk_ids: list[str] = field(init=False)
    """The chunks with at least one sentence vector, in ``rows`` order (what :meth:`all_means` scores)."""
    position: dict[str, int] = field(init=False, repr=False)
    """Index of each of :attr:`chunk_ids` (where its score is in :meth:`all_means`)."""
    _flat_rows: np.ndarray = field(init=False, repr=False)
    _runs: Runs = field(init=False, repr=False)

    def __post_init__(self) -> None:
        held = [(chunk_id, rows) for chunk_id, rows in self.rows.items() if len(rows)]
        flat = np.concatenate([rows for _, rows in held]) if held else np.zeros(0, dtype=np.int64)
        object.__setattr__(self, "chunk_ids", [chunk_id for chunk_id, _ in held])
        object.__setattr__(self, "position", {chunk_id: index for index, (chunk_id, _) in enumerate(held)})
        object.__setattr__(self, "_flat_rows", flat)
        object.__setattr__(self, "_runs", Runs.of(np.array([len(rows) for _, rows in held], dtype=np.int64)))

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
        stored = dict(iter_stored_vectors(store, model, list(unique)))
        row_of = {text_hash: row for row, text_hash in enumerate(stored)}
        # negligible components zeroed as in the dense index: the same scores without underflowing products
        vectors = without_negligible(np.vstack(list(stored.values()))) if stored else np.zeros((0, 0), np.float32)
        rows = {
            chunk_id: np.array([row_of[h] for h in hashes if h in row_of], dtype=np.int64)
            for chunk_id, hashes in chunk_hashes.items()
        }
        return cls(vectors, rows)

    @property
    def usable(self) -> bool:
        """Whether it holds sentence vectors for every chunk that has them (not over the cap, not empty)."""
        return self.complete and len(self.chunk_ids) > 0

    def all_means(self, query_vector: np.ndarray, top: int = TOP_SENTENCES) -> np.ndarray:
        """For every chunk in :attr:`chunk_ids`, the mean cosine of its ``top`` best sentences to
        ``query_vector`` (fewer when it has fewer), as an array: one product with every sentence vector
        (einsum), one gather, :func:`top_means`."""
        if not self.chunk_ids:
            return np.zeros(0, dtype=np.float64)
        cosines = cosines_to(self.vectors, query_vector)
        return top_means(cosines[self._flat_rows], self._runs, top)


def cosines_to(rows: np.ndarray, query_vector: np.ndarray) -> np.ndarray:
    """``rows @ query_vector`` through einsum, not BLAS: BLAS's worker threads wait for a core on a busy
    machine (docs/results/design-measurements.md), and one query's product is too small to gain from threads
    (as in :mod:`kgrag.core.dense_index`)."""
    return np.einsum("ij,j->i", rows, np.asarray(query_vector, dtype=np.float32).reshape(-1))


@dataclass(frozen=True)
class Runs:
    """Consecutive runs of values (a passage's sentence cosines, one run per passage), described once so
    :func:`top_means` can be called on new values of the same layout without recomputing it."""

    lengths: np.ndarray
    present: np.ndarray
    """Which runs are not empty."""
    starts: np.ndarray
    """Start of each non-empty run in the values of the non-empty runs."""
    owner: np.ndarray
    """For each of those values, the index of its run among the non-empty ones."""

    @classmethod
    def of(cls, lengths: np.ndarray) -> Runs:
        present = lengths > 0
        counts = lengths[present]
        return cls(lengths, present, np.cumsum(counts) - counts, np.repeat(np.arange(len(counts)), counts))


def top_means(values: np.ndarray, runs: Runs, top: int) -> np.ndarray:
    """Mean of the ``top`` largest values of each run (fewer when a run is shorter; 0 for an empty run),
    vectorised: ``top`` rounds of a per-run maximum (``np.maximum.reduceat``), each removing the maximum it
    took. A loop of small sorts per pool, or one sort of every value, costs more
    (docs/results/design-measurements.md); this is O(values) per round."""
    means = np.zeros(len(runs.lengths), dtype=np.float64)
    if not len(runs.starts):
        return means
    counts = runs.lengths[runs.present]
    remaining = np.array(values, dtype=np.float64)
    if not runs.present.all():
        remaining = remaining[np.repeat(runs.present, runs.lengths)]
    total = np.zeros(len(counts), dtype=np.float64)
    for round_index in range(min(top, int(counts.max()))):
        best = np.maximum.reduceat(remaining, runs.starts)
        total += np.where(counts > round_index, best, 0.0)
        at_best = np.flatnonzero(remaining == best[runs.owner])  # the first maximum of each run is removed
        keep = np.empty(len(at_best), dtype=bool)
        keep[0] = True
        np.not_equal(runs.owner[at_best][1:], runs.owner[at_best][:-1], out=keep[1:])
        remaining[at_best[keep]] = -np.inf
    means[runs.present] = total / np.minimum(counts, top)
    return means
