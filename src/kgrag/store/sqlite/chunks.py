"""SQLite chunk repository with an FTS5 index kept in sync by triggers.

FTS5 is an external-content table over ``chunks``: the text is stored once, and the insert/delete
triggers keep the inverted index consistent inside the same transaction as the chunk rows.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence

from kgrag.core.records import ChunkRecord, ScoredId
from kgrag.store.sqlite.database import Database

CHUNKS_DDL = """
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    n_tokens INTEGER NOT NULL,
    text TEXT NOT NULL,
    text_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, ord);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(text_hash);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, content='chunks', content_rowid='rowid', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
"""

_COLUMNS = "id, doc_id, ord, char_start, char_end, n_tokens, text, text_hash"
_WORD = re.compile(r"\w+", re.UNICODE)


def _row_to_chunk(r: sqlite3.Row) -> ChunkRecord:
    return ChunkRecord(
        id=r["id"],
        doc_id=r["doc_id"],
        ord=r["ord"],
        char_start=r["char_start"],
        char_end=r["char_end"],
        text=r["text"],
        n_tokens=r["n_tokens"],
        text_hash=r["text_hash"],
    )


def fts_match_expression(query: str) -> str | None:
    """Turn free text into a safe FTS5 OR-query of quoted terms (users never write FTS syntax)."""
    terms = dict.fromkeys(t.lower() for t in _WORD.findall(query))
    if not terms:
        return None
    return " OR ".join(f'"{t}"' for t in terms)


class SQLiteChunks:
    """Chunks of documents plus BM25 search through FTS5's ``bm25()``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def replace_for_document(self, doc_id: str, chunks: Sequence[ChunkRecord]) -> None:
        """Make the document's chunks exactly ``chunks``.

        A chunk id is derived from the document and the chunk's text, so a chunk whose id survives an
        edit has the same text: its row is kept (only its position is updated), and with it everything
        derived from it (graph mentions, extraction marks). Editing one paragraph of a long document
        then re-extracts only the chunks that really changed.
        """
        wanted = {c.id for c in chunks}
        with self._db.transaction():  # read inside it, so no other writer changes the rows in between
            existing = {row[0] for row in self._db.query("SELECT id FROM chunks WHERE doc_id = ?", (doc_id,))}
            self._db.executemany("DELETE FROM chunks WHERE id = ?", [(cid,) for cid in existing - wanted])
            self._db.executemany(
                "UPDATE chunks SET ord = ?, char_start = ?, char_end = ? WHERE id = ?",
                [(c.ord, c.char_start, c.char_end, c.id) for c in chunks if c.id in existing],
            )
            self._db.executemany(
                f"INSERT INTO chunks({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)",
                [
                    (c.id, c.doc_id, c.ord, c.char_start, c.char_end, c.n_tokens, c.text, c.text_hash)
                    for c in chunks
                    if c.id not in existing
                ],
            )

    def get_many(self, chunk_ids: Sequence[str]) -> list[ChunkRecord]:
        """Chunks in the order of ``chunk_ids`` (unknown ids are skipped)."""
        found: dict[str, ChunkRecord] = {}
        ids = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(ids), 500):
            batch = ids[start : start + 500]
            marks = ",".join("?" * len(batch))
            for r in self._db.query(f"SELECT {_COLUMNS} FROM chunks WHERE id IN ({marks})", batch):
                found[r["id"]] = _row_to_chunk(r)
        return [found[i] for i in ids if i in found]

    def for_document(self, doc_id: str) -> list[ChunkRecord]:
        rows = self._db.query(f"SELECT {_COLUMNS} FROM chunks WHERE doc_id = ? ORDER BY ord", (doc_id,))
        return [_row_to_chunk(r) for r in rows]

    def iter_all(self) -> Iterator[ChunkRecord]:
        last = 0
        while True:
            rows = self._db.query(
                f"SELECT rowid, {_COLUMNS} FROM chunks WHERE rowid > ? ORDER BY rowid LIMIT 1000", (last,)
            )
            if not rows:
                return
            for r in rows:
                yield _row_to_chunk(r)
            last = rows[-1]["rowid"]

    def count(self) -> int:
        return int(self._db.scalar("SELECT COUNT(*) FROM chunks") or 0)

    def search_bm25(self, query: str, limit: int) -> list[ScoredId]:
        """Top chunks by BM25; scores are negated so that higher means more relevant."""
        expression = fts_match_expression(query)
        if expression is None:
            return []
        rows = self._db.query(
            "SELECT c.id, bm25(chunks_fts) AS s FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
            "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
            (expression, limit),
        )
        return [ScoredId(id=r["id"], score=-float(r["s"])) for r in rows]
