"""The chunk repository of both stores, except full-text search (FTS5 in SQLite, ``tsvector`` in
PostgreSQL), which each backend's subclass adds as ``search_bm25``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kgrag.core.records import ChunkRecord
from kgrag.store.sql.database import Dialect, Row, SqlDatabase

COLUMNS = "id, doc_id, ord, char_start, char_end, n_tokens, text, text_hash"


def chunk_record(r: Row | tuple[Any, ...], at: int = 0) -> ChunkRecord:
    """The chunk in ``r`` whose :data:`COLUMNS` start at position ``at``."""
    return ChunkRecord(
        id=r[at],
        doc_id=r[at + 1],
        ord=r[at + 2],
        char_start=r[at + 3],
        char_end=r[at + 4],
        n_tokens=r[at + 5],
        text=r[at + 6],
        text_hash=r[at + 7],
    )


class SqlChunks:
    """Chunks of documents; writes join the caller's transaction."""

    def __init__(self, db: SqlDatabase, dialect: Dialect) -> None:
        self._db = db
        self._dialect = dialect

    def replace_for_document(self, doc_id: str, chunks: Sequence[ChunkRecord]) -> None:
        """Make the document's chunks exactly ``chunks``.

        A chunk id is derived from the document and the chunk's text, so a chunk whose id survives an
        edit has the same text: its row is kept (only its position is updated), and with it everything
        derived from it (graph mentions, extraction marks). Editing one paragraph of a long document
        then re-extracts only the chunks that really changed.
        """
        wanted = {c.id for c in chunks}
        with self._db.transaction():  # read inside it, so no other writer changes the rows in between
            rows = self._db.query(f"SELECT id FROM chunks WHERE doc_id = ?{self._dialect.for_update}", (doc_id,))
            existing = {r[0] for r in rows}
            for condition, params in self._dialect.in_batches("id", sorted(existing - wanted)):
                self._db.execute(f"DELETE FROM chunks WHERE {condition}", params)
            self._db.executemany(
                "UPDATE chunks SET ord = ?, char_start = ?, char_end = ? WHERE id = ?",
                [(c.ord, c.char_start, c.char_end, c.id) for c in chunks if c.id in existing],
            )
            self._db.executemany(
                f"INSERT INTO chunks({COLUMNS}) VALUES (?,?,?,?,?,?,?,?)",
                [
                    (c.id, c.doc_id, c.ord, c.char_start, c.char_end, c.n_tokens, c.text, c.text_hash)
                    for c in chunks
                    if c.id not in existing
                ],
            )

    def get_many(self, chunk_ids: Sequence[str]) -> list[ChunkRecord]:
        """Chunks in the order of ``chunk_ids`` (unknown ids are skipped)."""
        found: dict[str, ChunkRecord] = {}
        for condition, params in self._dialect.in_batches("id", chunk_ids):
            for r in self._db.query(f"SELECT {COLUMNS} FROM chunks WHERE {condition}", params):
                found[r[0]] = chunk_record(r)
        return [found[i] for i in dict.fromkeys(chunk_ids) if i in found]

    def for_document(self, doc_id: str) -> list[ChunkRecord]:
        rows = self._db.query(f"SELECT {COLUMNS} FROM chunks WHERE doc_id = ? ORDER BY ord", (doc_id,))
        return [chunk_record(r) for r in rows]

    def for_document_range(self, doc_id: str, first_ord: int, last_ord: int) -> list[ChunkRecord]:
        rows = self._db.query(
            f"SELECT {COLUMNS} FROM chunks WHERE doc_id = ? AND ord BETWEEN ? AND ? ORDER BY ord",
            (doc_id, first_ord, last_ord),
        )
        return [chunk_record(r) for r in rows]

    def iter_all(self) -> Iterator[ChunkRecord]:
        """Every chunk in insertion order, read in pages so the corpus is never held at once."""
        last = 0
        while True:
            rows = self._db.query(
                f"SELECT rowid, {COLUMNS} FROM chunks WHERE rowid > ? ORDER BY rowid LIMIT 1000", (last,)
            )
            if not rows:
                return
            for r in rows:
                yield chunk_record(r, 1)
            last = rows[-1][0]

    def count(self) -> int:
        return int(self._db.scalar("SELECT COUNT(*) FROM chunks") or 0)

    def token_quantile(self, share: float) -> int | None:
        """The ``n_tokens`` at quantile ``share`` of the stored chunks (nearest rank, rounding down)."""
        n = self.count()
        if n == 0:
            return None
        offset = min(n - 1, max(0, int(share * (n - 1))))
        return int(self._db.scalar("SELECT n_tokens FROM chunks ORDER BY n_tokens LIMIT 1 OFFSET ?", (offset,)))
