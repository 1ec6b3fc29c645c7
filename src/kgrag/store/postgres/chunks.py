"""PostgreSQL chunk repository: full-text search over a generated ``tsvector`` column with a GIN index.

The column is ``to_tsvector('english', text)``, generated and stored by PostgreSQL itself, so it can never
drift from the text (the job FTS5's triggers do in the SQLite backend). Ranking is ``ts_rank_cd`` — not
BM25; ``docs/postgresql.md`` says how it differs and what that means for the ``bm25`` and ``hybrid``
pipelines:

- the ``english`` configuration stems (Snowball) and drops stop words; FTS5's ``porter unicode61`` stems
  (Porter) and keeps them;
- ``ts_rank_cd`` scores cover density (how often and how close together the query's terms occur),
  divided here by ``1 + log(length)`` (normalisation flag 1) as a stand-in for BM25's length
  normalisation; it has **no IDF**, so a rare query term weighs no more than a common one.

Users never write tsquery syntax: the query's words become a quoted OR-query, as for FTS5.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from kgrag.core.records import ChunkRecord, ScoredId
from kgrag.store.postgres.database import PgDatabase

_COLUMNS = "id, doc_id, ord, char_start, char_end, n_tokens, text, text_hash"
_WORD = re.compile(r"\w+", re.UNICODE)
TEXT_SEARCH_CONFIG = "english"
RANK_NORMALISATION = 1  # divide by 1 + log(document length)


def _chunk(r: Sequence[Any]) -> ChunkRecord:
    return ChunkRecord(
        id=r[0], doc_id=r[1], ord=r[2], char_start=r[3], char_end=r[4], n_tokens=r[5], text=r[6], text_hash=r[7]
    )


def tsquery_expression(query: str) -> str | None:
    """Free text as a safe ``to_tsquery`` OR-expression of quoted terms (``\\w+`` never holds a quote)."""
    terms = dict.fromkeys(t.lower() for t in _WORD.findall(query))
    if not terms:
        return None
    return " | ".join(f"'{t}'" for t in terms)


class PgChunks:
    """Chunks of documents plus BM25-like search through ``ts_rank_cd``."""

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    def replace_for_document(self, doc_id: str, chunks: Sequence[ChunkRecord]) -> None:
        """Make the document's chunks exactly ``chunks``, keeping rows (and their graph mentions) whose id
        survives — the semantics of :meth:`kgrag.store.sqlite.chunks.SQLiteChunks.replace_for_document`."""
        wanted = {c.id for c in chunks}
        with self._db.transaction():
            rows = self._db.query("SELECT id FROM chunks WHERE doc_id = %s FOR UPDATE", (doc_id,))
            existing = {r[0] for r in rows}
            gone = sorted(existing - wanted)
            if gone:
                self._db.execute("DELETE FROM chunks WHERE id = ANY(%s)", (gone,))
            self._db.executemany(
                "UPDATE chunks SET ord = %s, char_start = %s, char_end = %s WHERE id = %s",
                [(c.ord, c.char_start, c.char_end, c.id) for c in chunks if c.id in existing],
            )
            self._db.executemany(
                f"INSERT INTO chunks({_COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
                [
                    (c.id, c.doc_id, c.ord, c.char_start, c.char_end, c.n_tokens, c.text, c.text_hash)
                    for c in chunks
                    if c.id not in existing
                ],
            )

    def get_many(self, chunk_ids: Sequence[str]) -> list[ChunkRecord]:
        """Chunks in the order of ``chunk_ids`` (unknown ids are skipped)."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return []
        rows = self._db.query(f"SELECT {_COLUMNS} FROM chunks WHERE id = ANY(%s)", (ids,))
        found = {r[0]: _chunk(r) for r in rows}
        return [found[i] for i in ids if i in found]

    def for_document(self, doc_id: str) -> list[ChunkRecord]:
        rows = self._db.query(f"SELECT {_COLUMNS} FROM chunks WHERE doc_id = %s ORDER BY ord", (doc_id,))
        return [_chunk(r) for r in rows]

    def iter_all(self) -> Iterator[ChunkRecord]:
        """Every chunk in insertion order, read in pages so the corpus is never held at once."""
        last = 0
        while True:
            rows = self._db.query(
                f"SELECT rowid, {_COLUMNS} FROM chunks WHERE rowid > %s ORDER BY rowid LIMIT 1000", (last,)
            )
            if not rows:
                return
            for r in rows:
                yield _chunk(r[1:])
            last = rows[-1][0]

    def count(self) -> int:
        return int(self._db.scalar("SELECT COUNT(*) FROM chunks") or 0)

    def search_bm25(self, query: str, limit: int) -> list[ScoredId]:
        """Top chunks by ``ts_rank_cd`` (higher is more relevant); ties in insertion order."""
        expression = tsquery_expression(query)
        if expression is None or limit <= 0:
            return []
        rows = self._db.query(
            "SELECT c.id, ts_rank_cd(c.tsv, q, %s) AS s FROM chunks c, to_tsquery(%s::regconfig, %s) q "
            "WHERE c.tsv @@ q ORDER BY s DESC, c.rowid LIMIT %s",
            (RANK_NORMALISATION, TEXT_SEARCH_CONFIG, expression, limit),
        )
        return [ScoredId(id=r[0], score=float(r[1])) for r in rows]
