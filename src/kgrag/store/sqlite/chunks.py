"""SQLite's part of the chunk repository (:class:`kgrag.store.sql.chunks.SqlChunks`): an FTS5 index kept in
sync by triggers, and BM25 search over it.

FTS5 is an external-content table over ``chunks``: the text is stored once, and the insert/delete
triggers keep the inverted index consistent inside the same transaction as the chunk rows. Searches are
answered by an in-memory copy of its ranking once that pays (:mod:`kgrag.store.sqlite.lexical_hot`,
``store.lexical_index``), else by FTS5 itself; both return the same ids and scores.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgrag.core.records import ChunkRecord, ScoredId
from kgrag.store.sql.chunks import SqlChunks
from kgrag.store.sql.database import SQLITE
from kgrag.store.sqlite.database import Database
from kgrag.store.sqlite.lexical_hot import HotLexicalIndex, LexicalParams

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


def query_words(query: str) -> list[str]:
    """The distinct lower-cased words of free text, in order: one quoted FTS5 phrase each, OR-ed (users
    never write FTS syntax, and ``\\w`` never matches a quote)."""
    return list(dict.fromkeys(t.lower() for t in _WORD.findall(query)))


class SQLiteChunks(SqlChunks):
    """Chunks of documents plus BM25 search through FTS5's ``bm25()``."""

    def __init__(self, db: Database, lexical: LexicalParams | None = None) -> None:
        super().__init__(db, SQLITE)
        self.lexical = HotLexicalIndex(db, lexical or LexicalParams())

    def get_many(self, chunk_ids: Sequence[str]) -> list[ChunkRecord]:
        """Chunks in the order of ``chunk_ids`` (unknown ids skipped), from the in-memory index's rows while
        one is current, else from the table."""
        index = self.lexical.held()
        if index is None:
            return super().get_many(chunk_ids)
        records = index.records
        return [records[i] for i in dict.fromkeys(chunk_ids) if i in records]

    def search_bm25(self, query: str, limit: int) -> list[ScoredId]:
        """Top chunks by FTS5's BM25, higher is more relevant; ties in rowid (insertion) order."""
        return self.search_bm25_many([query], limit)[0]

    def search_bm25_many(self, queries: Sequence[str], limit: int) -> list[list[ScoredId]]:
        """:meth:`search_bm25` of each query, answered together by the in-memory index where it can (one
        generation check and tokenizer call for the batch, each shared word's postings read once), by
        FTS5 for the rest."""
        words = [query_words(query) if limit > 0 else [] for query in queries]
        asked = [i for i, some in enumerate(words) if some]
        results: list[list[ScoredId]] = [[] for _ in queries]
        if asked:
            found = self.lexical.search_many([words[i] for i in asked], limit)
            for i, hits in zip(asked, found, strict=True):
                results[i] = hits if hits is not None else self.search_fts5(words[i], limit)
        return results

    def search_fts5(self, words: list[str], limit: int) -> list[ScoredId]:
        """The same search run by FTS5 itself (``bm25()`` is negative: negated so higher is better)."""
        rows = self._db.query(
            "SELECT c.id, bm25(chunks_fts) AS s FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
            "WHERE chunks_fts MATCH ? ORDER BY s, chunks_fts.rowid LIMIT ?",
            (" OR ".join(f'"{w}"' for w in words), limit),
        )
        return [ScoredId(id=r[0], score=-float(r[1])) for r in rows]
