"""The in-memory BM25 index of the SQLite store ranks exactly as FTS5's ``bm25()``: the same top-50 ids in
the same order (ties by rowid in both) and the same scores, on the sample corpus and on GraphRAG-Bench
Medical; it falls back to FTS5 where it cannot answer, follows writes, and ``store.lexical_index``
decides when it is built."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from tests.helpers import add_document

from kgrag import Workspace
from kgrag.core.records import ScoredId
from kgrag.store.sql.chunks import SqlChunks
from kgrag.store.sqlite import SQLiteStore
from kgrag.store.sqlite.chunks import query_words
from kgrag.store.sqlite.database import Database
from kgrag.store.sqlite.lexical_hot import AUTO_AFTER_SEARCHES, LexicalParams
from kgrag.store.sqlite.lexical_index import FtsTokenizer, build_lexical_index, table_tokenize

POOL = 50


def _both(db: Database, store: SQLiteStore, queries: list[str]) -> list[tuple[list[ScoredId], list[ScoredId]]]:
    """(in-memory, FTS5) top-``POOL`` hits per query, from an index built over the store as it is."""
    index = build_lexical_index(db)
    tokenizer = FtsTokenizer(table_tokenize(db))
    pairs = []
    for query in queries:
        words = query_words(query)
        terms = tokenizer.terms(words)
        assert terms is not None, query  # plain words are single tokens: the index answers them all
        pairs.append((index.search(terms, POOL), store.chunks.search_fts5(words, POOL)))
    tokenizer.close()
    return pairs


def _assert_same(pairs: list[tuple[list[ScoredId], list[ScoredId]]]) -> None:
    for memory, fts5 in pairs:
        assert [h.id for h in memory] == [h.id for h in fts5]
        assert [h.score for h in memory] == pytest.approx([h.score for h in fts5], rel=1e-12, abs=0)


def _sample_queries() -> list[str]:
    questions = [q["question"] for q in json.loads(SAMPLE_QUESTIONS.read_text())]
    words = sorted({w for path in SAMPLE_DOCS.glob("*.md") for w in query_words(path.read_text())})
    rng = random.Random(7)  # plus random bags of corpus words: rare and common terms, repeats of a stem
    return questions + [" ".join(rng.sample(words, rng.randint(1, 12))) for _ in range(200)]


def test_same_ranking_as_fts5_on_the_sample_corpus(sample_ws: Workspace) -> None:
    store = sample_ws.store
    assert isinstance(store, SQLiteStore)
    pairs = _both(store.db, store, _sample_queries())
    assert sum(1 for memory, _ in pairs if memory) > 200  # the queries do hit
    _assert_same(pairs)


def test_same_ranking_as_fts5_on_medical(medical_dir: Path) -> None:
    corpus = json.loads((medical_dir / "corpus.json").read_text())
    store = SQLiteStore(":memory:")
    for n, record in enumerate(corpus):  # ~1,000-character passages: the chunk sizes of a real index
        text = record["context"]
        add_document(store, f"d{n}", [text[i : i + 1000] for i in range(0, len(text), 1000)])
    questions = [q["question"] for q in json.loads((medical_dir / "questions.json").read_text())]
    _assert_same(_both(store.db, store, random.Random(3).sample(questions, 300)))
    store.close()


def _small_store(mode: str = "memory", max_chunks: int = 20_000) -> SQLiteStore:
    store = SQLiteStore(":memory:", lexical=LexicalParams(mode=mode, max_chunks=max_chunks))  # type: ignore[arg-type]
    add_document(
        store,
        "d1",
        ["Running the Café pumps", "the pump runs at the café", "foo_bar telemetry", "nothing here", "RUNS, runs!"],
    )
    return store


def test_tokenised_like_fts5_stems_case_and_diacritics() -> None:
    store = _small_store()
    for query in ("cafe running", "CAFÉS pump", "runs", "Telemetry foo"):
        memory = store.chunks.search_bm25(query, 5)
        assert store.chunks.lexical.loaded is not None
        assert memory == store.chunks.search_fts5(query_words(query), 5)
        assert memory
    store.close()


def test_a_phrase_word_falls_back_to_fts5() -> None:
    store = _small_store()
    assert store.chunks.lexical.search(["foo_bar"], 5) is None  # two tokens: a phrase query
    assert [h.id for h in store.chunks.search_bm25("foo_bar", 5)] == ["d1-c2"]  # FTS5 answered
    assert store.chunks.search_bm25("nothing", 0) == [] and store.chunks.search_bm25("?!", 5) == []
    store.close()


def test_the_index_follows_writes() -> None:
    store = _small_store()
    assert store.chunks.search_bm25("osprey", 5) == []
    add_document(store, "d2", ["osprey firmware rollout"])
    assert [h.id for h in store.chunks.search_bm25("osprey", 5)] == ["d2-c0"]
    store.documents.delete("d2")
    assert store.chunks.search_bm25("osprey", 5) == []
    store.close()


def test_auto_builds_after_the_warm_up_and_only_for_small_stores() -> None:
    store = _small_store("auto")
    for _ in range(AUTO_AFTER_SEARCHES):
        store.chunks.search_bm25("pump", 5)
        assert store.chunks.lexical.loaded is None  # FTS5 answers the first searches
    first = store.chunks.search_bm25("pump", 5)
    assert store.chunks.lexical.loaded is not None and first == store.chunks.search_fts5(["pump"], 5)
    add_document(store, "d2", ["pump station"])  # a write starts the warm-up again
    store.chunks.search_bm25("pump", 5)
    assert store.chunks.lexical.loaded is None
    store.close()
    large = _small_store("auto", max_chunks=4)
    for _ in range(AUTO_AFTER_SEARCHES + 3):
        large.chunks.search_bm25("pump", 5)
    assert large.chunks.lexical.loaded is None  # 5 chunks > lexical_max_chunks
    large.close()
    never = _small_store("fts5")
    never.chunks.search_bm25("pump", 5)
    assert never.chunks.lexical.loaded is None
    never.close()


def test_workspace_setting_reaches_the_store(tmp_path: Path) -> None:
    ws = Workspace.init(
        tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"}, store={"lexical_index": "memory"}
    )
    ws.index([SAMPLE_DOCS / "team-platform.md"])
    hits = ws.retrieve("Who leads the Platform team?", "bm25").items
    store = ws.store
    assert isinstance(store, SQLiteStore) and store.chunks.lexical.loaded is not None and hits
    ws.close()


def test_chunk_reads_use_the_index_rows_while_current() -> None:
    store = _small_store()
    ids = ["d1-c3", "nope", "d1-c0", "d1-c3", "d1-c1"]
    from_table = SqlChunks.get_many(store.chunks, ids)
    assert store.chunks.lexical.held() is None and store.chunks.get_many(ids) == from_table
    store.chunks.search_bm25("pump", 5)  # builds the index (memory mode)
    held = store.chunks.lexical.held()
    assert held is not None and store.chunks.get_many(ids) == from_table
    assert [c.id for c in from_table] == ["d1-c3", "d1-c0", "d1-c1"]  # order kept, unknown and repeats dropped
    add_document(store, "d2", ["pump station"])
    assert store.chunks.lexical.held() is None  # stale after a write: the table answers
    assert [c.id for c in store.chunks.get_many(["d2-c0"])] == ["d2-c0"]
    store.close()


def test_chunk_reads_in_a_write_transaction_never_wait_for_a_search() -> None:
    """Indexing reads chunks inside its transaction (holding the database lock) while a search holds the
    index's lock and waits for that database lock to read the generation: the chunk read must not wait
    for the index's lock (it did, and a server indexing under 50 concurrent queries hung)."""
    store = _small_store()
    store.chunks.search_bm25("pump", 5)  # builds the index
    lexical = store.chunks.lexical
    searching = threading.Event()

    def search_waiting_for_the_database() -> None:
        with lexical._lock:  # what _current holds while it reads the generation
            searching.set()
            _ = store.db.generation

    def index_reading_chunks() -> None:
        with store.db.transaction():
            waiter = threading.Thread(target=search_waiting_for_the_database, daemon=True)
            waiter.start()
            searching.wait(5)
            store.chunks.get_many(["d1-c0"])  # → lexical.held()

    writer = threading.Thread(target=index_reading_chunks, daemon=True)
    writer.start()
    writer.join(10)
    assert not writer.is_alive(), "chunk read inside a transaction waited for a search: lock-order deadlock"


def test_a_batch_ranks_as_each_query_alone(medical_dir: Path) -> None:
    """qe and combined search a question and its rewrites in one batch: each shared word's postings are
    read once, yet every query gets exactly the ids and scores (bit for bit) of its own search."""
    corpus = json.loads((medical_dir / "corpus.json").read_text())
    store = SQLiteStore(":memory:", lexical=LexicalParams(mode="memory"))
    text = corpus[0]["context"]
    add_document(store, "d0", [text[i : i + 1000] for i in range(0, len(text), 1000)])
    questions = [q["question"] for q in json.loads((medical_dir / "questions.json").read_text())]
    batch = random.Random(4).sample(questions, 3)
    batch += [batch[0] + " " + batch[1], "", "foo_bar " + batch[2], batch[0]]  # repeats, empty, a phrase word
    alone = [store.chunks.search_bm25(query, POOL) for query in batch]
    assert store.chunks.search_bm25_many(batch, POOL) == alone
    assert alone[0] and alone[4] == [] and alone[5]
    assert store.chunks.search_bm25_many(batch, 0) == [[]] * len(batch)
    store.close()


def test_the_tokenizer_learns_a_batch_at_once_and_stays_empty() -> None:
    tokenizer = FtsTokenizer("porter unicode61")
    assert tokenizer.terms_many([["Running", "cafés"], ["running", "foo_bar"], []]) == [["run", "cafe"], None, []]
    assert tokenizer.terms(["pumps", "Running"]) == ["pump", "run"]
    assert tokenizer._conn.execute("SELECT COUNT(*) FROM words").fetchone()[0] == 0  # rolled back, not deleted
    tokenizer.close()


def test_a_batch_counts_each_of_its_searches_towards_the_warm_up() -> None:
    store = _small_store("auto")
    assert AUTO_AFTER_SEARCHES % 4 == 0  # whole batches of 4 fill the warm-up exactly
    for _ in range(AUTO_AFTER_SEARCHES // 4):
        store.chunks.search_bm25_many(["pump", "cafe", "runs", "telemetry"], 5)
        assert store.chunks.lexical.loaded is None
    store.chunks.search_bm25_many(["pump"], 5)
    assert store.chunks.lexical.loaded is not None
    store.close()
