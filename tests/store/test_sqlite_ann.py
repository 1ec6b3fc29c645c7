"""SQLite only: HNSW chunk search through ``store.vectors.search`` above the threshold, saved next to the
database so a new process loads it, extended after appends, rebuilt after deletions, and never saved
for an in-memory store."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import add_document

from kgrag.config.store import StoreConfig
from kgrag.core.vector_index import AnnParams
from kgrag.documents.records import content_hash
from kgrag.store.sqlite.store import SQLiteStore, open_sqlite_store

pytest.importorskip("faiss", reason="faiss-cpu (extra `ann`) is not installed")
from kgrag.core.hnsw_index import HnswIndex

ANN = AnnParams(threshold=20)


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _fill(store: SQLiteStore, doc: str, n: int, seed: int) -> tuple[list[str], np.ndarray]:
    texts = [f"{doc} text {i}" for i in range(n)]
    matrix = _unit(np.random.default_rng(seed).normal(size=(n, 16)))
    ids = add_document(store, doc, texts)
    store.vectors.put("m", [(content_hash(t), v) for t, v in zip(texts, matrix, strict=True)])
    return ids, matrix


def _saved(tmp_path: Path) -> dict[str, object]:
    (manifest,) = (tmp_path / "db.sqlite3.ann").glob("*.json")
    data: dict[str, object] = json.loads(manifest.read_text())
    return data


def test_search_uses_hnsw_and_saves_it_for_the_next_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    ids, matrix = _fill(store, "d1", 30, seed=1)
    assert store.vectors.search("m", matrix[4], 3)[0].id == ids[4]
    assert _saved(tmp_path)["rows"] == 30
    store.close()

    def no_build(*args: object) -> HnswIndex:
        raise AssertionError("a saved index must be loaded, not rebuilt")

    monkeypatch.setattr(HnswIndex, "build", no_build)
    again = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    assert again.vectors.search("m", matrix[9], 1)[0].id == ids[9]
    again.close()


def test_appends_extend_the_saved_index_and_deletes_rebuild_it(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    _, first = _fill(store, "d1", 25, seed=1)
    store.vectors.search("m", first[0], 1)
    old = _saved(tmp_path)
    ids, added = _fill(store, "d2", 10, seed=2)
    assert store.vectors.search("m", added[3], 1)[0].id == ids[3]  # new writes are searched at once
    extended = _saved(tmp_path)
    assert extended["rows"] == 35 and extended["file"] != old["file"]
    assert not (tmp_path / "db.sqlite3.ann" / str(old["file"])).exists()  # the stale file is removed
    store.documents.delete("d2")
    assert all(h.id not in ids for h in store.vectors.search("m", added[3], 25))
    assert _saved(tmp_path)["rows"] == 25
    store.close()


def test_deleting_vectors_deletes_the_saved_index(tmp_path: Path) -> None:
    """The saved index may hold vectors of deleted chunks: deleting vectors (``kgrag prune``) removes it."""
    store = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    ids, matrix = _fill(store, "d1", 30, seed=1)
    store.vectors.search("m", matrix[0], 1)
    assert list((tmp_path / "db.sqlite3.ann").iterdir())
    assert store.vectors.delete("m", ["no-such-hash"]) == 0 and _saved(tmp_path)["rows"] == 30  # nothing went
    store.vectors.delete("m", [content_hash("d1 text 0")])
    assert not list((tmp_path / "db.sqlite3.ann").iterdir())
    assert store.vectors.search("m", matrix[5], 1)[0].id == ids[5]  # rebuilt for the next search
    store.close()


def test_below_the_threshold_or_in_memory_nothing_is_saved(tmp_path: Path) -> None:
    small = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    ids, matrix = _fill(small, "d1", 19, seed=3)
    assert small.vectors.search("m", matrix[2], 1)[0].id == ids[2]
    assert not (tmp_path / "db.sqlite3.ann").exists()
    small.close()
    memory = open_sqlite_store(StoreConfig(url=":memory:", ann_threshold=20), tmp_path)
    ids, matrix = _fill(memory, "d1", 30, seed=3)
    assert memory.vectors.search("m", matrix[5], 1)[0].id == ids[5]
    assert not any(p.name.endswith(".ann") for p in tmp_path.iterdir())


def test_a_corrupt_or_unwritable_sidecar_costs_a_rebuild_not_a_query(tmp_path: Path) -> None:
    (tmp_path / "db.sqlite3.ann").write_text("not a directory")  # mkdir fails: the save is skipped
    store = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    ids, matrix = _fill(store, "d1", 30, seed=4)
    assert store.vectors.search("m", matrix[1], 1)[0].id == ids[1]
    store.close()


def test_an_unreadable_manifest_means_a_rebuild(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    ids, matrix = _fill(store, "d1", 30, seed=5)
    store.vectors.search("m", matrix[0], 1)
    store.close()
    (manifest,) = (tmp_path / "db.sqlite3.ann").glob("*.json")
    manifest.write_text("{broken")
    again = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    assert again.vectors.search("m", matrix[6], 1)[0].id == ids[6]
    assert _saved(tmp_path)["rows"] == 30
    again.close()


def test_a_write_that_leaves_chunk_vectors_alone_reuses_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    ids, matrix = _fill(store, "d1", 30, seed=6)
    store.vectors.search("m", matrix[0], 1)
    generation = store.generation()

    def no_io(*args: object) -> HnswIndex:
        raise AssertionError("unchanged vectors must reuse the index in memory")

    monkeypatch.setattr(HnswIndex, "read", no_io)
    monkeypatch.setattr(HnswIndex, "build", no_io)
    store.meta.set("something", "else")  # a content write: the generation moves, the vectors do not
    assert store.generation() != generation
    assert store.vectors.search("m", matrix[8], 1)[0].id == ids[8]
    store.close()


def test_chunk_vectors_come_from_the_table_when_the_index_is_approximate(tmp_path: Path) -> None:
    """HNSW keeps no matrix to read rows from: passage vectors by id are read from the table instead."""
    store = SQLiteStore(tmp_path / "db.sqlite3", ann=ANN)
    ids, matrix = _fill(store, "d1", 25, seed=4)
    store.vectors.search("m", matrix[0], 3)
    found = store.vectors.chunk_vectors("m", [ids[20], ids[2], "unknown"])
    assert sorted(found) == sorted([ids[2], ids[20]])
    assert np.array_equal(found[ids[2]], matrix[2]) and np.array_equal(found[ids[20]], matrix[20])
    store.close()
