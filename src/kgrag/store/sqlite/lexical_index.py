"""FTS5's BM25 ranking answered from arrays in memory: the hot path of BM25 searches on SQLite.

SQLite spends milliseconds per BM25 query walking each term's doclist and calling ``bm25()`` per matching
row, and qe and combined run several such searches per question. The same ranking from arrays costs a
fraction of that (docs/results/design-measurements.md): per term, the chunks holding it and a precomputed term weight;
per query, one scatter-add per term. The arrays are read from FTS5's own index (its ``fts5vocab``
instance table), so documents are tokenised by the table's tokenizer by construction, and query words
go through the same tokenizer, run by SQLite on a private in-memory FTS5 table (:class:`FtsTokenizer`).

Scores follow ``bm25()`` in SQLite's ``fts5_aux.c`` operation for operation, in double precision: per
query phrase *i*, IDF = ln((N - n_i + 0.5) / (n_i + 0.5)), floored at 1e-6; per row, the sum over
phrases (in query order) of IDF * (f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl)) with k1 = 1.2,
b = 0.75, D the row's token count and avgdl the mean over the N rows. Ties are ordered by rowid, as the
FTS5 query orders them, so both paths return the same ids and scores (``tests/store/test_lexical_index.py``).
Each query word is one FTS5 phrase; a word the tokenizer splits into several tokens (``foo_bar``) is a
phrase query, which this index does not answer: :meth:`LexicalIndex.search` returns None and the caller
asks FTS5.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgrag.core.records import ChunkRecord, ScoredId
from kgrag.store.sql.chunks import COLUMNS, chunk_record
from kgrag.store.sqlite.database import Database

K1 = 1.2
B = 0.75
MIN_IDF = 1e-6  # fts5_aux.c: "the mimimum allowable IDF is (1e-6)"
DEFAULT_TOKENIZE = "unicode61"  # FTS5's own default when a table names none
MEMO_WORDS = 20_000  # query words remembered per tokenizer (a few MB at most); cleared when full
_INSTANCES = "chunks_fts_instances"  # a temp view of the index: (term, row, column, offset) per token
_TOKENIZE = re.compile(r"tokenize\s*=\s*(['\"])(.*?)\1", re.IGNORECASE)


Posting = tuple[np.ndarray, np.ndarray]
"""The rows holding one term and the term's score in each of them."""


@dataclass(frozen=True)
class LexicalIndex:
    """Postings of every term (CSR: ``indptr`` into ``rows`` and ``weights``) over the chunks in rowid
    order; ``weights`` hold each posting's BM25 term factor, so a query only scales and adds them. The
    chunk rows themselves come along (``records``, about the size of the corpus text): hydrating the
    passages a query keeps (50 before a reranker) then costs dict lookups, not a database round trip."""

    ids: list[str]
    records: dict[str, ChunkRecord]
    vocabulary: dict[str, int]
    indptr: np.ndarray
    rows: np.ndarray
    weights: np.ndarray
    n_rows: int

    def search(self, terms: Sequence[str], limit: int) -> list[ScoredId]:
        """The ``limit`` best chunks for one phrase per term (terms already tokenised), best first."""
        return self.search_many([terms], limit)[0]

    def search_many(self, queries: Sequence[Sequence[str]], limit: int) -> list[list[ScoredId]]:
        """:meth:`search` of each query's terms. The queries of one question (qe, combined: the question
        and its rewrites) share most words, so each distinct term's postings are looked up and weighted
        once for the batch; each query still adds its terms in its own order, so every score is the
        same sum as a search of that query alone."""
        postings: dict[str, Posting | None] = {}
        return [self._top(self._scores(terms, postings), limit) for terms in queries]

    def _scores(self, terms: Sequence[str], postings: dict[str, Posting | None]) -> np.ndarray:
        scores = np.zeros(len(self.ids))
        for term in terms:
            posting = postings[term] if term in postings else postings.setdefault(term, self._posting(term))
            if posting is not None:
                scores[posting[0]] += posting[1]
        return scores

    def _posting(self, term: str) -> Posting | None:
        """The rows holding ``term`` and its BM25 contribution to each (IDF times the term factor); None
        when no row holds it: it scores nothing anywhere, as in FTS5."""
        t = self.vocabulary.get(term)
        if t is None:
            return None
        start, end = int(self.indptr[t]), int(self.indptr[t + 1])
        hits = end - start
        idf = math.log((self.n_rows - hits + 0.5) / (hits + 0.5))
        if idf <= 0.0:
            idf = MIN_IDF
        return self.rows[start:end], idf * self.weights[start:end]

    def _top(self, scores: np.ndarray, limit: int) -> list[ScoredId]:
        matched = np.flatnonzero(scores)
        if len(matched) > limit:  # keep every row tied with the limit-th score, then cut after the sort
            kth = -np.partition(-scores[matched], limit - 1)[limit - 1]
            matched = matched[scores[matched] >= kth]
        order = matched[np.argsort(-scores[matched], kind="stable")][:limit]  # ties: rowid order
        ids = self.ids
        return [ScoredId(ids[i], s) for i, s in zip(order.tolist(), scores[order].tolist(), strict=True)]

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (the vocabulary, ids and chunk rows come on top)."""
        return int(self.indptr.nbytes + self.rows.nbytes + self.weights.nbytes)


class FtsTokenizer:
    """Tokenises words exactly as an FTS5 table does, by letting SQLite run the same tokenizer on a
    private in-memory table; each word's result is remembered, so a repeated word costs a dict lookup.

    Thread-safe: one lock around the connection and the memo."""

    def __init__(self, tokenize: str) -> None:
        self.tokenize = tokenize
        self._conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        quoted = tokenize.replace("'", "''")
        self._conn.execute(f"CREATE VIRTUAL TABLE words USING fts5(word, tokenize='{quoted}')")
        self._conn.execute("CREATE VIRTUAL TABLE word_tokens USING fts5vocab(words, instance)")
        self._memo: dict[str, str | None] = {}
        self._lock = threading.Lock()

    def terms(self, words: Sequence[str]) -> list[str] | None:
        """The index term of each word, or None when some word is not exactly one token."""
        return self.terms_many([words])[0]

    def terms_many(self, queries: Sequence[Sequence[str]]) -> list[list[str] | None]:
        """:meth:`terms` of each query's words; the words none of them met before are tokenised together,
        in one round trip through SQLite instead of one per query."""
        with self._lock:
            missing = [w for w in dict.fromkeys(w for words in queries for w in words) if w not in self._memo]
            if missing:
                self._learn(missing)
            found = [[self._memo.get(w) for w in words] for words in queries]
        return [None if any(t is None for t in terms) else [t for t in terms if t is not None] for terms in found]

    def _learn(self, words: list[str]) -> None:
        """Tokenise ``words`` by inserting them and reading the table's vocabulary, then roll the insert
        back: the table stays empty, so nothing has to be deleted first and the index never grows
        (deleting the previous words first costs more per call: docs/results/design-measurements.md)."""
        if len(self._memo) + len(words) > MEMO_WORDS:
            self._memo.clear()
        tokens: dict[int, list[str]] = {}
        self._conn.execute("BEGIN")
        try:
            self._conn.executemany("INSERT INTO words(rowid, word) VALUES (?, ?)", list(enumerate(words, start=1)))
            for row, term in self._conn.execute("SELECT doc, term FROM word_tokens"):
                tokens.setdefault(row, []).append(term)
        finally:
            self._conn.execute("ROLLBACK")
        for row, word in enumerate(words, start=1):
            found = tokens.get(row, [])
            self._memo[word] = found[0] if len(found) == 1 else None

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def table_tokenize(db: Database) -> str:
    """The ``tokenize`` option ``chunks_fts`` was created with (older workspaces keep theirs)."""
    sql = db.scalar("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'") or ""
    match = _TOKENIZE.search(sql)
    return match.group(2) if match else DEFAULT_TOKENIZE


def build_lexical_index(db: Database) -> LexicalIndex:
    """Read the postings and row lengths of ``chunks_fts`` (its ``fts5vocab`` instance view: one row per
    token occurrence, as the tokenizer wrote it) and precompute each posting's BM25 term factor.

    SQLite lists each term's occurrences in one row (``GROUP BY term`` streams in the view's own order;
    grouping by term *and* row would make SQLite sort every occurrence, memory the heap then keeps:
    docs/results/design-measurements.md), and NumPy parses and counts them, so the load never holds a Python
    object per posting."""
    db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_INSTANCES} USING fts5vocab(main, chunks_fts, instance)")
    chunks = db.query_plain(f"SELECT rowid, {COLUMNS} FROM chunks ORDER BY rowid")
    per_term = db.query_plain(f"SELECT term, group_concat(doc) FROM temp.{_INSTANCES} GROUP BY term")
    rowids = np.fromiter((r[0] for r in chunks), dtype=np.int64, count=len(chunks))
    vocabulary = {term: t for t, (term, _) in enumerate(per_term)}
    occurrences = np.fromiter((docs.count(",") + 1 for _, docs in per_term), dtype=np.int64, count=len(per_term))
    small = len(chunks) == 0 or int(rowids[-1]) < 2**31  # int32 rows halve the load's largest arrays
    instances = _numbers(",".join(docs for _, docs in per_term), np.int32 if small else np.int64)
    del per_term
    doc_rowids, freq, sizes = _postings(instances, occurrences)
    del instances
    rows = np.searchsorted(rowids, doc_rowids)
    known = rows < len(rowids)
    known[known] = rowids[rows[known]] == doc_rowids[known]
    del doc_rowids
    if not known.all():  # a row another process wrote between the two reads: left for the next reload
        sizes = np.add.reduceat(known, np.cumsum(sizes) - sizes) if len(sizes) else sizes
        rows, freq = rows[known], freq[known]
    n_rows = len(chunks)
    lengths = np.bincount(rows, weights=freq, minlength=n_rows)
    avgdl = float(lengths.sum()) / float(n_rows) if n_rows else 1.0
    norm = K1 * (1 - B + B * lengths / avgdl)
    weights = norm[rows]  # each posting's (f * (k1 + 1)) / (f + norm), computed in place
    weights += freq
    freq *= K1 + 1.0
    np.divide(freq, weights, out=weights)
    indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    return LexicalIndex(
        ids=[r[1] for r in chunks],
        records={r[1]: chunk_record(r, 1) for r in chunks},
        vocabulary=vocabulary,
        indptr=indptr,
        rows=rows.astype(np.int32),
        weights=weights,
        n_rows=n_rows,
    )


def _numbers(text: str, dtype: type[np.generic]) -> np.ndarray:
    """Comma-separated numbers (SQLite's ``group_concat``) as an array, parsed in C."""
    return np.fromstring(text, dtype=dtype, sep=",") if text else np.zeros(0, dtype=dtype)


def _postings(instances: np.ndarray, occurrences: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, count) per posting and postings per term, from each term's occurrences (``occurrences[t]`` of
    them, consecutive in ``instances``). FTS5 lists them by row, so a posting is a run of one row; should
    a term's rows ever come unordered, they are sorted first (same result, more memory)."""
    starts = np.cumsum(occurrences) - occurrences
    if _unordered(instances, starts):
        terms = np.repeat(np.arange(len(occurrences), dtype=np.int64), occurrences)
        instances = instances[np.lexsort((instances, terms))]
    new_run = np.empty(len(instances), dtype=bool)
    new_run[:1] = True
    np.not_equal(instances[1:], instances[:-1], out=new_run[1:])
    new_run[starts] = True
    first = np.flatnonzero(new_run)
    counts = np.empty(len(first), dtype=np.float64)
    counts[:-1] = first[1:] - first[:-1]
    counts[-1:] = len(instances) - first[-1:]
    sizes = np.add.reduceat(new_run, starts) if len(starts) else occurrences
    return instances[first], counts, sizes


def _unordered(instances: np.ndarray, starts: np.ndarray) -> bool:
    """Whether some term lists a lower row after a higher one (a new term may start lower)."""
    descending = instances[1:] < instances[:-1]
    descending[starts[1:] - 1] = False
    return bool(descending.any())
