"""SQLite vector repository: float32 blobs keyed by (model, text hash).

The standard-library sqlite3 here cannot load extensions (no sqlite-vec), so vectors are stored as
blobs and searched in memory: exactly in NumPy (:mod:`kgrag.core.dense_index`) below
``store.ann_threshold`` chunks, with faiss HNSW above it (:mod:`kgrag.core.hnsw_index`, saved next to
the database by :mod:`kgrag.store.sqlite.ann_sidecar` so a new process loads it instead of rebuilding).
The index of each model is kept in memory by the repository and reloaded only when the database's write
generation changes, so a query costs one search, and indexing done by another process is still seen.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kgrag.core.hot import HotValue
from kgrag.core.records import ScoredId
from kgrag.core.vector_index import AnnParams, VectorIndex
from kgrag.store.sqlite.database import Database

if TYPE_CHECKING:  # NumPy loads with the first vector read or written, not when the store opens
    import numpy as np

    from kgrag.store.sqlite.ann_sidecar import AnnSidecar

VECTORS_DDL = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, text_hash)
) WITHOUT ROWID;
"""


class SQLiteVectors:
    """Embedding cache, chunk vector matrix and exact search over it."""

    def __init__(self, db: Database, ann: AnnParams | None = None, ann_dir: Path | None = None) -> None:
        self._db = db
        self._ann = ann or AnnParams()
        self._ann_dir = ann_dir
        self._sidecar: AnnSidecar | None = None  # built with the first index: it imports NumPy and faiss glue
        self._hot: dict[str, HotValue[VectorIndex]] = {}
        self._hot_lock = threading.Lock()  # HotValue itself is not thread-safe; servers query in threads

    def missing_chunk_hashes(self, model: str) -> list[tuple[str, str]]:
        """(text_hash, text) of chunks whose text has no vector for ``model`` yet, one per hash."""
        rows = self._db.query(
            "SELECT c.text_hash, MIN(c.text) FROM chunks c LEFT JOIN embeddings e "
            "ON e.model = ? AND e.text_hash = c.text_hash WHERE e.text_hash IS NULL "
            "GROUP BY c.text_hash ORDER BY MIN(c.rowid)",
            (model,),
        )
        return [(r[0], r[1]) for r in rows]

    def put(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        import numpy as np

        rows = [(model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items]
        with self._db.transaction():
            self._db.executemany("INSERT OR REPLACE INTO embeddings(model, text_hash, vector) VALUES (?,?,?)", rows)

    def get(self, model: str, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        import numpy as np

        out: dict[str, np.ndarray] = {}
        hashes = list(dict.fromkeys(text_hashes))
        for start in range(0, len(hashes), 500):
            batch = hashes[start : start + 500]
            marks = ",".join("?" * len(batch))
            rows = self._db.query(
                f"SELECT text_hash, vector FROM embeddings WHERE model = ? AND text_hash IN ({marks})", [model, *batch]
            )
            for r in rows:
                out[r[0]] = np.frombuffer(r[1], dtype=np.float32)
        return out

    def chunk_vectors(self, model: str, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors of the chunks ``chunk_ids`` that have one, by id: rows of the in-memory matrix the
        dense search reads (the same numbers as the table's, without a query), or from the table where
        the index keeps no matrix (an approximate index)."""
        from kgrag.core.dense_index import DenseIndex

        index = self._index(model)
        if not isinstance(index, DenseIndex):
            return self._chunk_vectors_from_table(model, chunk_ids)
        return {chunk_id: vector for chunk_id in chunk_ids if (vector := index.vector(chunk_id)) is not None}

    def _chunk_vectors_from_table(self, model: str, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        import numpy as np

        out: dict[str, np.ndarray] = {}
        ids = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(ids), 500):
            batch = ids[start : start + 500]
            rows = self._db.query(
                "SELECT c.id, e.vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.text_hash = c.text_hash "
                f"WHERE c.id IN ({','.join('?' * len(batch))})",
                [model, *batch],
            )
            out.update((r[0], np.frombuffer(r[1], dtype=np.float32)) for r in rows)
        return out

    def chunk_matrix(self, model: str) -> tuple[list[str], np.ndarray]:
        """All chunk ids that have a vector, and their vectors stacked in the same order."""
        import numpy as np

        rows = self._db.query(
            "SELECT c.id, e.vector FROM chunks c JOIN embeddings e "
            "ON e.model = ? AND e.text_hash = c.text_hash ORDER BY c.rowid",
            (model,),
        )
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        ids = [r[0] for r in rows]
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        return ids, matrix

    def search(self, model: str, vector: np.ndarray, k: int) -> list[ScoredId]:
        """The ``k`` chunks most similar to ``vector`` (cosine of unit vectors), best first."""
        return self._index(model).search(vector, k)

    def search_many(self, model: str, vectors: np.ndarray, k: int) -> list[list[ScoredId]]:
        """``search`` of each row of ``vectors`` (the exact index reads its matrix once for all)."""
        from kgrag.core.vector_index import search_many

        return search_many(self._index(model), vectors, k)

    def _index(self, model: str) -> VectorIndex:
        """The model's chunk index, loaded on first use and after any committed content write."""
        with self._hot_lock:
            hot = self._hot.get(model)
            if hot is None:
                hot = HotValue(lambda: self._load(model), lambda: self._db.generation)
                self._hot[model] = hot
            return hot.get()

    def _load(self, model: str) -> VectorIndex:
        ids, matrix = self.chunk_matrix(model)
        return self._saved_indexes().index(model, ids, matrix, self._ann)

    def _saved_indexes(self) -> AnnSidecar:
        """The saved-index keeper, built on first use (it imports NumPy and faiss glue)."""
        from kgrag.store.sqlite.ann_sidecar import AnnSidecar

        if self._sidecar is None:
            self._sidecar = AnnSidecar(self._ann_dir)
        return self._sidecar

    def count(self, model: str) -> int:
        return int(self._db.scalar("SELECT COUNT(*) FROM embeddings WHERE model = ?", (model,)) or 0)

    def models(self) -> dict[str, int]:
        rows = self._db.query("SELECT model, COUNT(*) FROM embeddings GROUP BY model ORDER BY model")
        return {str(r[0]): int(r[1]) for r in rows}

    def hashes(self, model: str) -> list[str]:
        return [str(r[0]) for r in self._db.query_plain("SELECT text_hash FROM embeddings WHERE model = ?", (model,))]

    def delete(self, model: str, text_hashes: Sequence[str] | None = None) -> int:
        """:meth:`kgrag.store.base.VectorRepository.delete`; the model's saved HNSW index goes too, since it
        may hold vectors of deleted chunks (the next search that needs one rebuilds it)."""
        with self._db.transaction():
            if text_hashes is None:
                deleted = self._db.changes("DELETE FROM embeddings WHERE model = ?", (model,))
            else:
                deleted = sum(
                    self._db.changes(
                        f"DELETE FROM embeddings WHERE model = ? AND text_hash IN ({','.join('?' * len(batch))})",
                        [model, *batch],
                    )
                    for batch in _batches(list(text_hashes))
                )
        if deleted:
            self._saved_indexes().forget(model)
        return deleted


def _batches(items: list[str], size: int = 500) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
