"""Every kind of bad input the issue found ends in a clear error (exit 1) or a skipped, named file, never
an internal error (exit 2), and never blocks the next run (#8)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.core.errors import WorkspaceError
from kgrag.core.progress import SilentProgress
from kgrag.indexing.report import IndexReport
from kgrag.indexing.stages import embed as embed_stage
from kgrag.models.embeddings import FakeEmbedder
from kgrag.store.sqlite.database import Database

GOOD = "Aspirin treats pain. Doctors prescribe aspirin for headaches."


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert "internal error" not in result.output, result.output
    return result.exit_code, result.output


@pytest.fixture
def ws_path(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"}).close()
    (path / "kgrag.toml").write_text('[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n')
    return path


def _bad_tree(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "good.txt").write_text(GOOD, encoding="utf-8")
    with open(os.path.join(os.fsencode(docs), b"bad\xff name.txt"), "wb") as handle:
        handle.write(b"Text behind a name that is not UTF-8.")
    (docs / "records.jsonl").write_text('{"text": "lone \\ud800 surrogate escape"}\n', encoding="utf-8")
    (docs / "loop-a.txt").symlink_to(docs / "loop-b.txt")
    (docs / "loop-b.txt").symlink_to(docs / "loop-a.txt")
    deep = docs
    for _ in range(1100):  # deeper than Python's recursion limit (os.makedirs itself would recurse)
        deep = deep / "d"
        deep.mkdir()
    (deep / "deep.txt").write_text("The deepest file talks about ibuprofen.", encoding="utf-8")
    return docs


def _remove_deep(docs: Path) -> None:
    """Remove the deep tree bottom-up without recursion (``shutil.rmtree``, also pytest's clean-up of old
    temporary directories, recurses and would hit the recursion limit)."""
    deepest = docs / "d"
    while (deepest / "d").is_dir():
        deepest = deepest / "d"
    (deepest / "deep.txt").unlink()
    while deepest != docs:
        deepest.rmdir()
        deepest = deepest.parent


@pytest.fixture
def bad_docs(tmp_path: Path) -> Iterator[Path]:
    docs = _bad_tree(tmp_path)
    yield docs
    _remove_deep(docs)


def test_bad_files_are_skipped_and_named_and_the_rest_is_indexed(bad_docs: Path, ws_path: Path) -> None:
    docs = bad_docs
    for _ in range(2):  # a re-run is not blocked either
        code, output = _cli("index", str(docs), "-w", str(ws_path))
        assert code == 0, output
    flat = " ".join(output.split())
    assert "bad\\xff name.txt" in flat and "not valid UTF-8" in flat
    assert "loop-a.txt" in flat and "symbolic links" in flat
    with Workspace.open(ws_path) as ws:
        texts = " ".join(chunk.text for chunk in ws.store.chunks.iter_all())
    assert "Aspirin" in texts and "ibuprofen" in texts and "lone \ufffd surrogate" in texts


def test_query_arguments(ws_path: Path, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(GOOD, encoding="utf-8")
    assert _cli("index", str(tmp_path / "a.txt"), "-w", str(ws_path))[0] == 0
    for k in ("0", "-1", "-80"):
        code, output = _cli("query", "aspirin", "--k", k, "-w", str(ws_path))
        # refused by the option's range (CliRunner shows click's usage code 2; `kgrag` itself exits 1)
        assert code in (1, 2) and "Invalid value for '--k'" in output
    assert _cli("query", "   ", "-w", str(ws_path))[0] == 1
    code, output = _cli("query", "asp\udcffirin \ud800", "-w", str(ws_path), "-p", "bm25")
    assert code == 0, output


def test_a_config_path_that_is_a_directory_is_a_user_error(ws_path: Path) -> None:
    (ws_path / "kgrag.toml").unlink()
    (ws_path / "kgrag.toml").mkdir()
    code, output = _cli("status", "-w", str(ws_path))
    assert code == 1 and "cannot read the config file" in output


def test_damaged_database_pages_are_a_user_error(ws_path: Path, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(GOOD * 200, encoding="utf-8")
    assert _cli("index", str(tmp_path / "a.txt"), "-w", str(ws_path))[0] == 0
    database = ws_path / "kgrag.sqlite3"
    with sqlite3.connect(database) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(database.read_bytes())
    data[4096 * 2 : 4096 * 6] = os.urandom(4096 * 4)  # damage pages behind the header
    database.write_bytes(bytes(data))
    for command in (["status"], ["query", "aspirin", "-p", "bm25"], ["index", str(tmp_path / "a.txt")]):
        code, output = _cli(*command, "-w", str(ws_path))
        assert code == 1, output
        assert "damaged" in output or "not a usable kgrag database" in output


def test_a_read_only_database_is_a_user_error(tmp_path: Path) -> None:
    database = Database(tmp_path / "db.sqlite3", ["CREATE TABLE IF NOT EXISTS t (x)"])
    database.execute("PRAGMA query_only = ON")  # what a read-only file or mount looks like to SQLite
    with pytest.raises(WorkspaceError, match="read-only"), database.transaction():
        database.execute("INSERT INTO t VALUES (1)")
    database.close()


class _DyingEmbedder(FakeEmbedder):
    """Fails on its third batch, like a process killed mid-stage."""

    def __init__(self) -> None:
        super().__init__(dimension=8)
        self.batches = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.batches += 1
        if self.batches == 3:
            raise KeyboardInterrupt
        return super().embed(texts)


def test_chunk_vectors_are_committed_while_embedding(ws_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kill during embedding keeps what was embedded before the last commit (every 2 s, here every batch)."""
    monkeypatch.setattr(embed_stage, "COMMIT_SECONDS", 0.0)
    with Workspace.open(ws_path) as ws:
        docs = [f"Sentence number {i} about medicine {i * 7}." for i in range(10)]
        for i, text in enumerate(docs):
            (ws_path / f"d{i}.txt").write_text(text, encoding="utf-8")
        ws.index([ws_path / f"d{i}.txt" for i in range(10)], pipeline="fast")
        embedder = _DyingEmbedder()
        with pytest.raises(KeyboardInterrupt):
            embed_stage.embed_missing_chunks(ws.store, embedder, 4, SilentProgress(), IndexReport())
        assert len(ws.store.vectors.missing_chunk_hashes(embedder.name)) == 10 - 2 * 4


def test_a_stray_carriage_return_in_the_config_is_a_user_error(ws_path: Path) -> None:
    """Found by the config fuzz test: ``read_text`` turned the ``\\r`` into a newline and let it through."""
    (ws_path / "kgrag.toml").write_bytes(b"[retrieval]\rk = 3\n")
    code, output = _cli("status", "-w", str(ws_path))
    assert code == 1 and "not valid TOML" in output


def test_status_names_a_failed_file_once(ws_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "empty.md").write_text("", encoding="utf-8")
    (docs / "ok.md").write_text("The ferry leaves Oban at nine.", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _cli("index", "docs", "-w", str(ws_path))  # the error is written with the path as given: docs/empty.md
    code, output = _cli("status", "-w", str(ws_path))
    [line] = [line for line in output.splitlines() if line.startswith("failed")]
    assert code == 0 and line.count("empty.md") == 1 and "the file is empty" in line, line


def test_answers_from_a_half_indexed_workspace_say_so(ws_path: Path) -> None:
    from kgrag.core.records import DocumentStatus

    with Workspace.open(ws_path) as ws:
        for i in range(3):
            (ws_path / f"d{i}.txt").write_text(f"Ferry {i} leaves Oban at nine every morning.", encoding="utf-8")
        ws.index([ws_path / f"d{i}.txt" for i in range(3)], pipeline="fast")  # BM25 only, on purpose
        assert "not fully" not in _cli("query", "When does the ferry leave?", "-p", "bm25", "-w", str(ws_path))[1]
        ws.index([ws_path / f"d{i}.txt" for i in range(3)], pipeline="no-graph")
        assert "not fully" not in _cli("query", "When does the ferry leave?", "-p", "bm25", "-w", str(ws_path))[1]
        first = ws.documents.list()[0]
        ws.store.documents.set_status(first.id, DocumentStatus.CHUNKED)  # what a run stopped before embedding leaves
    code, output = _cli("query", "When does the ferry leave?", "-p", "bm25", "-w", str(ws_path))
    assert code == 0 and "1 of 3 documents are not fully indexed" in output and "re-run `kgrag index`" in output
    code, output = _cli("status", "-w", str(ws_path))
    assert code == 0 and "1 of 3 documents are not fully indexed" in output
