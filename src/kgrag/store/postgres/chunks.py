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
from collections.abc import Sequence

from kgrag.core.records import ScoredId
from kgrag.store.postgres.database import PgDatabase
from kgrag.store.postgres.qmark import PgQmark
from kgrag.store.sql.chunks import SqlChunks
from kgrag.store.sql.database import POSTGRESQL

_WORD = re.compile(r"\w+", re.UNICODE)
TEXT_SEARCH_CONFIG = "english"
RANK_NORMALISATION = 1  # divide by 1 + log(document length)


def tsquery_expression(query: str) -> str | None:
    """Free text as a safe ``to_tsquery`` OR-expression of quoted terms (``\\w+`` never holds a quote)."""
    terms = dict.fromkeys(t.lower() for t in _WORD.findall(query))
    if not terms:
        return None
    return " | ".join(f"'{t}'" for t in terms)


class PgChunks(SqlChunks):
    """Chunks of documents plus BM25-like search through ``ts_rank_cd``."""

    def __init__(self, db: PgDatabase) -> None:
        super().__init__(PgQmark(db), POSTGRESQL)
        self._pg = db

    def search_bm25(self, query: str, limit: int) -> list[ScoredId]:
        """Top chunks by ``ts_rank_cd`` (higher is more relevant); ties in insertion order."""
        expression = tsquery_expression(query)
        if expression is None or limit <= 0:
            return []
        rows = self._pg.query(
            "SELECT c.id, ts_rank_cd(c.tsv, q, %s) AS s FROM chunks c, to_tsquery(%s::regconfig, %s) q "
            "WHERE c.tsv @@ q ORDER BY s DESC, c.rowid LIMIT %s",
            (RANK_NORMALISATION, TEXT_SEARCH_CONFIG, expression, limit),
        )
        return [ScoredId(id=r[0], score=float(r[1])) for r in rows]

    def search_bm25_many(self, queries: Sequence[str], limit: int) -> list[list[ScoredId]]:
        """One server-side search per query."""
        return [self.search_bm25(query, limit) for query in queries]
