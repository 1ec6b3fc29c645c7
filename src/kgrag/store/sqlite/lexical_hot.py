"""Which BM25 searches of the SQLite store the in-memory index answers (``store.lexical_index``), and
keeping that index in step with the database.

``memory`` builds the index at the first search after the store opens or its content changes (a committed
write here, or any commit by another process: the store's write generation). ``auto``, the default, lets
FTS5 answer the first :data:`AUTO_AFTER_SEARCHES` searches of each generation and builds the index at the
next one, only while the workspace has at most ``store.lexical_max_chunks`` chunks: the build reads every
posting and chunk row once (about as long as a few dozen FTS5 searches: docs/results/design-measurements.md),
which a one-shot ``kgrag query`` (1-5 searches) would not earn back,
while a server or an evaluation run does after a few dozen. ``fts5`` never builds it. Where the index
cannot answer a query (a word FTS5 splits into a phrase), FTS5 does.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from kgrag.core.records import ScoredId
from kgrag.store.sqlite.database import Database

if TYPE_CHECKING:  # NumPy loads with the first index build, not when the store opens (`kgrag status`)
    from kgrag.store.sqlite.lexical_index import FtsTokenizer, LexicalIndex

LexicalMode = Literal["auto", "memory", "fts5"]
AUTO_AFTER_SEARCHES = 8


@dataclass(frozen=True)
class LexicalParams:
    """``store.lexical_index`` and ``store.lexical_max_chunks`` (see docs/configuration.md)."""

    mode: LexicalMode = "auto"
    max_chunks: int = 8_000


class HotLexicalIndex:
    """The in-memory index of the store's current generation, or None where FTS5 is to answer.

    Thread-safe: searches from several threads share one index, and a (re)build runs once, under a lock.
    """

    def __init__(self, db: Database, params: LexicalParams) -> None:
        self._db = db
        self._params = params
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._index: LexicalIndex | None = None
        self._published: tuple[int, LexicalIndex] | None = None
        """The built index with its generation, replaced as one object so :meth:`held` can read it
        without the lock."""
        self._tokenizer: FtsTokenizer | None = None
        self._searches = 0  # searches FTS5 answered in this generation
        self._too_large = False

    @property
    def loaded(self) -> LexicalIndex | None:
        """The index currently held, if any (tests and memory measurements look at it)."""
        return self._index

    def held(self) -> LexicalIndex | None:
        """The index if one is loaded and the store has not changed since (never builds, never counts as
        a search): chunk reads use its rows while it is current."""
        published = self._published
        if published is None:
            return None
        # No lock here: chunk reads inside a write transaction (indexing holds the database lock) call
        # this, while a search holds this object's lock and waits for the database lock to read the
        # generation: taking the lock here too deadlocked a server indexing under concurrent queries.
        generation, index = published
        return index if self._db.generation == generation else None

    def search(self, words: Sequence[str], limit: int) -> list[ScoredId] | None:
        """The in-memory answer for the query ``words`` (lower-cased, one FTS5 phrase each), or None
        when FTS5 must answer (mode, warm-up, size, or a word that is not a single token)."""
        return self.search_many([words], limit)[0]

    def search_many(self, queries: Sequence[Sequence[str]], limit: int) -> list[list[ScoredId] | None]:
        """:meth:`search` of each query's words, the batch checked against the store's generation once,
        its new words tokenised together and the postings of shared words read once (None where FTS5
        must answer that query)."""
        current = self._current(len(queries))
        if current is None:
            return [None] * len(queries)
        index, tokenizer = current
        per_query = tokenizer.terms_many(queries)
        found = iter(index.search_many([terms for terms in per_query if terms is not None], limit))
        return [None if terms is None else next(found) for terms in per_query]

    def _current(self, searches: int = 1) -> tuple[LexicalIndex, FtsTokenizer] | None:
        """The index and tokenizer to answer ``searches`` searches with, built when due; None while FTS5
        answers (those searches count towards ``auto``'s warm-up)."""
        if self._params.mode == "fts5":
            return None
        with self._lock:
            generation = self._db.generation
            if generation != self._generation:
                self._generation, self._index, self._searches, self._too_large = generation, None, 0, False
                self._published = None
            if self._index is None or self._tokenizer is None:
                if not self._due():
                    self._searches += searches
                    return None
                from kgrag.store.sqlite.lexical_index import build_lexical_index, table_tokenize

                self._index = build_lexical_index(self._db)
                self._tokenizer = self._tokenizer_for(table_tokenize(self._db))
                self._published = (generation, self._index)
            return self._index, self._tokenizer

    def _due(self) -> bool:
        """Whether to build now: always for ``memory``; for ``auto`` after the warm-up searches, if the
        store is small enough (counted once per generation)."""
        if self._params.mode == "memory":
            return True
        if self._too_large or self._searches < AUTO_AFTER_SEARCHES:
            return False
        self._too_large = int(self._db.scalar("SELECT COUNT(*) FROM chunks") or 0) > self._params.max_chunks
        return not self._too_large

    def _tokenizer_for(self, tokenize: str) -> FtsTokenizer:
        if self._tokenizer is not None and self._tokenizer.tokenize == tokenize:
            return self._tokenizer  # its memo stays valid: the same tokenizer gives the same terms
        if self._tokenizer is not None:
            self._tokenizer.close()
        from kgrag.store.sqlite.lexical_index import FtsTokenizer

        return FtsTokenizer(tokenize)

    def close(self) -> None:
        with self._lock:
            if self._tokenizer is not None:
                self._tokenizer.close()
            self._tokenizer, self._index, self._published = None, None, None
