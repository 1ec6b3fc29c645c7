"""SQLite's part of the chunk repository (:class:`kgrag.store.sql.chunks.SqlChunks`): an FTS5 index kept in
sync by triggers.

FTS5 is an external-content table over ``chunks``: the text is stored once, and the insert/delete
triggers keep the inverted index consistent inside the same transaction as the chunk rows.
"""

from __future__ import annotations

import re

from kgrag.core.records import ScoredId
from kgrag.store.sql.chunks import SqlChunks
from kgrag.store.sql.database import SQLITE
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

_WORD = re.compile(r"\w+", re.UNICODE)


def fts_match_expression(query: str) -> str | None:
    """Turn free text into a safe FTS5 OR-query of quoted terms (users never write FTS syntax)."""
    terms = dict.fromkeys(t.lower() for t in _WORD.findall(query))
    if not terms:
        return None
    return " OR ".join(f'"{t}"' for t in terms)


class SQLiteChunks(SqlChunks):
    """Chunks of documents plus BM25 search through FTS5's ``bm25()``."""

    def __init__(self, db: Database) -> None:
        super().__init__(db, SQLITE)

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
        return [ScoredId(id=r[0], score=-float(r[1])) for r in rows]
