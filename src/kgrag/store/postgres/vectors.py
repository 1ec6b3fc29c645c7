"""PostgreSQL vector repository: pgvector values keyed by (model, text hash), searched with HNSW.

**Why one table and per-model partial indexes.** Vectors of every embedding model share one
``embeddings(model, text_hash, vector)`` table whose column has no fixed dimension, exactly like the
SQLite backend's blobs, so the cache semantics (one vector per text and model, ever) and the copier stay
the same for every model. An HNSW index needs a fixed dimension, so each (model, dimension) that gets
vectors gets its own *partial expression index*::

    CREATE INDEX … ON embeddings USING hnsw ((vector::vector(384)) vector_ip_ops)
        WHERE model = 'onnx:all-MiniLM-L6-v2' AND vector_dims(vector) = 384

and :meth:`PgVectors.search` repeats that expression and predicate literally, so the planner matches it.
A table per dimension would also work, but would make every read and write dynamic and a model's
vectors movable between tables; a partial index costs nothing for the models it does not cover, and
switching models (``kgrag reindex --embeddings``) simply builds the next one.

Vectors are unit length (the ``Embedder`` contract), so cosine similarity is the inner product:
``vector_ip_ops`` with ``<#>`` (negative inner product) gives the same ranking and scores as the SQLite
backend's exact NumPy search. HNSW is approximate; ``hnsw.ef_search`` is raised to at least 2·k and
pgvector's iterative scan (``relaxed_order``) keeps scanning when the ``EXISTS`` filter drops vectors
that belong to entities or deleted chunks, and the outer query re-sorts exactly. Ties are broken by
chunk insertion order, as :class:`kgrag.core.dense_index.DenseIndex` does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from kgrag.core.records import ScoredId
from kgrag.store.postgres.database import PgDatabase

HNSW_M = 16  # pgvector's defaults: graph degree and build-time candidate list
HNSW_EF_CONSTRUCTION = 64
MIN_EF_SEARCH = 64


def index_name(model: str, dimension: int) -> str:
    """A stable identifier (≤ 63 characters) for the model's HNSW index."""
    digest = hashlib.sha256(model.encode()).hexdigest()[:16]
    return f"embeddings_hnsw_{digest}_{dimension}"


class PgVectors:
    """Embedding cache and chunk vector search, where the vectors are."""

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    def missing_chunk_hashes(self, model: str) -> list[tuple[str, str]]:
        """(text_hash, text) of chunks whose text has no vector for ``model`` yet, one per hash."""
        rows = self._db.query(
            "SELECT c.text_hash, MIN(c.text) FROM chunks c LEFT JOIN embeddings e "
            "ON e.model = %s AND e.text_hash = c.text_hash WHERE e.text_hash IS NULL "
            "GROUP BY c.text_hash ORDER BY MIN(c.rowid)",
            (model,),
        )
        return [(r[0], r[1]) for r in rows]

    def put(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        rows = [(model, h, np.asarray(v, dtype=np.float32).reshape(-1)) for h, v in items]
        if not rows:
            return
        with self._db.transaction():
            self._db.executemany(
                "INSERT INTO embeddings(model, text_hash, vector) VALUES (%s, %s, %s) "
                "ON CONFLICT (model, text_hash) DO UPDATE SET vector = excluded.vector",
                rows,
            )
            for dimension in sorted({len(r[2]) for r in rows}):
                ensure_index(self._db, model, dimension)

    def get(self, model: str, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        hashes = list(dict.fromkeys(text_hashes))
        if not hashes:
            return {}
        rows = self._db.query(
            "SELECT text_hash, vector FROM embeddings WHERE model = %s AND text_hash = ANY(%s)", (model, hashes)
        )
        return {r[0]: as_array(r[1]) for r in rows}

    def chunk_vectors(self, model: str, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors of the chunks ``chunk_ids`` that have one, by id (one server round trip)."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return {}
        rows = self._db.query(
            "SELECT c.id, e.vector FROM chunks c JOIN embeddings e ON e.model = %s AND e.text_hash = c.text_hash "
            "WHERE c.id = ANY(%s)",
            (model, ids),
        )
        return {r[0]: as_array(r[1]) for r in rows}

    def chunk_matrix(self, model: str) -> tuple[list[str], np.ndarray]:
        """All chunk ids that have a vector, and their vectors stacked in the same order."""
        rows = self._db.query(
            "SELECT c.id, e.vector FROM chunks c JOIN embeddings e "
            "ON e.model = %s AND e.text_hash = c.text_hash ORDER BY c.rowid",
            (model,),
        )
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        return [r[0] for r in rows], np.vstack([as_array(r[1]) for r in rows])

    def search(self, model: str, vector: np.ndarray, k: int) -> list[ScoredId]:
        """The ``k`` chunks most similar to ``vector`` (inner product of unit vectors), best first."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if k <= 0 or query.size == 0:
            return []
        with self._db.lock:
            self._db.execute("SELECT set_config('hnsw.ef_search', %s, false)", (str(max(MIN_EF_SEARCH, 2 * k)),))
            rows = self._db.query(_search_sql(model, query.size), {"q": query, "k": k})
        return [ScoredId(id=r[0], score=float(r[1])) for r in rows]

    def search_many(self, model: str, vectors: np.ndarray, k: int) -> list[list[ScoredId]]:
        """One server-side search per vector."""
        return [self.search(model, vector, k) for vector in vectors]

    def count(self, model: str) -> int:
        return int(self._db.scalar("SELECT COUNT(*) FROM embeddings WHERE model = %s", (model,)) or 0)

    def models(self) -> dict[str, int]:
        rows = self._db.query("SELECT model, COUNT(*) FROM embeddings GROUP BY model ORDER BY model")
        return {str(r[0]): int(r[1]) for r in rows}

    def hashes(self, model: str) -> list[str]:
        return [str(r[0]) for r in self._db.query("SELECT text_hash FROM embeddings WHERE model = %s", (model,))]

    def delete(self, model: str, text_hashes: Sequence[str] | None = None) -> int:
        """:meth:`kgrag.store.base.VectorRepository.delete`; deleting all of a model's vectors drops its
        HNSW indexes too (``kgrag reindex --embeddings`` builds the next model's)."""
        with self._db.transaction():
            if text_hashes is not None:
                return self._db.execute(
                    "DELETE FROM embeddings WHERE model = %s AND text_hash = ANY(%s)", (model, list(text_hashes))
                )
            deleted = self._db.execute("DELETE FROM embeddings WHERE model = %s", (model,))
            _drop_indexes(self._db, model)
        return deleted


def ensure_index(db: PgDatabase, model: str, dimension: int) -> None:
    """Create the (model, dimension) HNSW index unless it exists (in the caller's transaction)."""
    from psycopg import sql

    name = index_name(model, dimension)
    if db.scalar("SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = %s", (name,)):
        return
    db.execute(
        sql.SQL(
            "CREATE INDEX IF NOT EXISTS {name} ON embeddings USING hnsw ((vector::vector({dim})) vector_ip_ops) "
            "WITH (m = {m}, ef_construction = {ef}) WHERE model = {model} AND vector_dims(vector) = {dim}"
        ).format(
            name=sql.Identifier(name),
            dim=sql.Literal(dimension),
            m=sql.Literal(HNSW_M),
            ef=sql.Literal(HNSW_EF_CONSTRUCTION),
            model=sql.Literal(model),
        )
    )


def _drop_indexes(db: PgDatabase, model: str) -> None:
    """Drop the model's HNSW indexes, one per dimension it had (in the caller's transaction)."""
    from psycopg import sql

    prefix = index_name(model, 0)[:-1]  # the name without its dimension
    names = db.query(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND starts_with(indexname, %s)",
        (prefix,),
    )
    for (name,) in names:
        db.execute(sql.SQL("DROP INDEX IF EXISTS {name}").format(name=sql.Identifier(name)))


def as_array(value: Any) -> np.ndarray:
    """A loaded pgvector value (``pgvector.Vector`` or already an array) as float32."""
    data = value.to_numpy() if hasattr(value, "to_numpy") else value
    return np.asarray(data, dtype=np.float32)


def _search_sql(model: str, dimension: int) -> Any:
    """Nearest texts through the model's HNSW index, then their chunks, re-sorted exactly.

    The model and dimension are literals (not parameters) so that the planner can match the partial
    index's predicate even when psycopg prepares the statement.
    """
    from psycopg import sql

    return sql.SQL(
        "WITH nearest AS (SELECT e.text_hash, (e.vector::vector({dim})) <#> %(q)s::vector({dim}) AS distance "
        "FROM embeddings e WHERE e.model = {model} AND vector_dims(e.vector) = {dim} "
        "AND EXISTS (SELECT 1 FROM chunks c WHERE c.text_hash = e.text_hash) "
        "ORDER BY (e.vector::vector({dim})) <#> %(q)s::vector({dim}) LIMIT %(k)s) "
        "SELECT c.id, -n.distance FROM nearest n JOIN chunks c ON c.text_hash = n.text_hash "
        "ORDER BY n.distance, c.rowid LIMIT %(k)s"
    ).format(dim=sql.Literal(dimension), model=sql.Literal(model))
