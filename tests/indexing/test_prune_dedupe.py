"""Re-indexing a folder brings the workspace in line with it, end to end through the CLI: deleted files
are removed (only under the folders indexed, atomically), a moved file keeps its document without
re-embedding, and a copy under a second path is stored once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.helpers import index_with_word_extractor
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.indexing import sync

FAKE_TOML = '[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n'
FILES = ("team-platform.md", "product-kestrel.md", "incident-inc-2024-031.md", "on-call-handbook.md")


def _cli(*args: str) -> str:
    # Wide enough that no summary line wraps, whatever the length of the temporary paths.
    result = CliRunner(env={"COLUMNS": "400"}).invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in FILES:
        shutil.copy(SAMPLE_DOCS / name, corpus / name)
    ws = tmp_path / "ws"
    _cli("init", str(ws))
    (ws / "kgrag.toml").write_text(FAKE_TOML)
    assert "new 4" in _cli("index", str(corpus), "-w", str(ws))
    return corpus, ws


def _status(ws: Path) -> dict[str, Any]:
    info: dict[str, Any] = json.loads(_cli("status", "-w", str(ws), "--documents", "--json"))
    return info


def _sources(ws: Path) -> set[str]:
    return {Path(d["source"]).name for d in _status(ws)["document_list"]}


def _chunks_of(ws: Path, name: str) -> list[str]:
    with Workspace.open(ws) as opened:
        doc = next(d for d in opened.documents.list() if Path(d.source).name == name)
        return [c.id for c in opened.store.chunks.for_document(doc.id)]


def test_a_deleted_file_is_removed_and_no_longer_answers(setup: tuple[Path, Path]) -> None:
    corpus, ws = setup
    before = _status(ws)["chunks"]
    gone = _chunks_of(ws, "on-call-handbook.md")
    (corpus / "on-call-handbook.md").unlink()
    out = _cli("index", str(corpus), "-w", str(ws))
    assert "removed 1" in out
    assert "on-call-handbook.md" not in _sources(ws)
    assert _status(ws)["chunks"] == before - len(gone)
    payload = json.loads(_cli("query", "on-call rotation pager handover", "-w", str(ws), "-p", "bm25", "--json"))
    assert not {i["id"] for i in payload["retrieval"]["items"]} & set(gone)
    assert all(not s["source"].endswith("on-call-handbook.md") for s in payload["sources"].values())


def test_no_prune_keeps_deleted_files(setup: tuple[Path, Path]) -> None:
    corpus, ws = setup
    (corpus / "on-call-handbook.md").unlink()
    assert "removed 0" in _cli("index", str(corpus), "-w", str(ws), "--no-prune")
    assert "on-call-handbook.md" in _sources(ws)
    assert "removed 1" in _cli("index", str(corpus), "-w", str(ws))


def test_only_files_under_the_indexed_folders_are_pruned(setup: tuple[Path, Path], tmp_path: Path) -> None:
    corpus, ws = setup
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text("# Notes\n\nThe Tern bus is owned by Aisha Okafor.\n")
    (tmp_path / "single.md").write_text("# Single\n\nOsprey S3 ships with firmware 7.\n")
    _cli("index", str(other), str(tmp_path / "single.md"), "-w", str(ws))
    (other / "notes.md").unlink()
    (tmp_path / "single.md").unlink()
    assert "removed 0" in _cli("index", str(corpus), "-w", str(ws))  # another folder, a file named alone
    assert {"notes.md", "single.md"} <= _sources(ws)
    assert "removed 1" in _cli("index", str(other), "-w", str(ws))
    assert "notes.md" not in _sources(ws) and "single.md" in _sources(ws)


def test_a_moved_file_is_a_rename(setup: tuple[Path, Path]) -> None:
    corpus, ws = setup
    chunks = _chunks_of(ws, "team-platform.md")
    (corpus / "teams").mkdir()
    (corpus / "team-platform.md").rename(corpus / "teams" / "platform.md")
    out = _cli("index", str(corpus), "-w", str(ws))
    assert "moved 1" in out and "new 0" in out and "removed 0" in out
    assert "chunks written 0" in out and "texts embedded 0" in out
    assert _chunks_of(ws, "platform.md") == chunks  # same document, same passages, same ids
    shown = json.loads(_cli("show", chunks[0], "-w", str(ws), "--json"))
    assert shown["sources"][0]["source"] == str((corpus / "teams" / "platform.md").resolve())
    assert "unchanged 4" in _cli("index", str(corpus), "-w", str(ws))


def test_a_copy_is_stored_once_and_takes_over_when_the_original_goes(setup: tuple[Path, Path]) -> None:
    corpus, ws = setup
    before = _status(ws)["chunks"]
    shutil.copy(corpus / "product-kestrel.md", corpus / "kestrel-copy.md")
    out = _cli("index", str(corpus), "-w", str(ws))
    assert "duplicates 1" in out and "chunks written 0" in out
    assert _status(ws)["chunks"] == before and "kestrel-copy.md" in _sources(ws)
    payload = json.loads(_cli("query", "What is Kestrel?", "-w", str(ws), "-p", "bm25", "--json"))
    texts = [i["text"] for i in payload["retrieval"]["items"]]
    assert len(texts) == len(set(texts))  # no passage twice in the top k
    assert "unchanged 5" in _cli("index", str(corpus), "-w", str(ws))
    kept = _chunks_of(ws, "product-kestrel.md")
    (corpus / "product-kestrel.md").unlink()
    assert "removed 1" in _cli("index", str(corpus), "-w", str(ws))
    assert _chunks_of(ws, "kestrel-copy.md") == kept and _status(ws)["chunks"] == before


def test_a_copy_is_read_again_when_the_original_changes(setup: tuple[Path, Path]) -> None:
    corpus, ws = setup
    shutil.copy(corpus / "incident-inc-2024-031.md", corpus / "incident-copy.md")
    _cli("index", str(corpus), "-w", str(ws))
    assert _chunks_of(ws, "incident-copy.md") == []
    with (corpus / "incident-inc-2024-031.md").open("a", encoding="utf-8") as handle:
        handle.write("\n\nAddendum: the review closed on 3 May.\n")
    out = _cli("index", str(corpus), "-w", str(ws))
    assert "changed 1" in out and "new 1" in out  # the copy now holds the old text as its own document
    assert _chunks_of(ws, "incident-copy.md")


def test_removing_the_original_by_hand_keeps_the_copy(setup: tuple[Path, Path]) -> None:
    corpus, ws = setup
    shutil.copy(corpus / "team-platform.md", corpus / "platform-copy.md")
    _cli("index", str(corpus), "-w", str(ws))
    kept = _chunks_of(ws, "team-platform.md")
    _cli("remove", str(corpus / "team-platform.md"), "-w", str(ws))
    assert _chunks_of(ws, "platform-copy.md") == kept


def test_pruning_is_one_transaction(setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    corpus, ws = setup
    (corpus / "on-call-handbook.md").unlink()
    (corpus / "team-platform.md").unlink()
    real = sync.drop_document
    calls: list[str] = []

    def fail_second(store: Any, doc: Any) -> bool:
        calls.append(doc.id)
        if len(calls) == 2:
            raise OSError("disk gone mid-prune")
        return real(store, doc)

    monkeypatch.setattr(sync, "drop_document", fail_second)
    assert CliRunner().invoke(app, ["index", str(corpus), "-w", str(ws)]).exit_code == 2
    monkeypatch.undo()
    assert {"on-call-handbook.md", "team-platform.md"} <= _sources(ws)  # nothing half-removed
    assert "removed 2" in _cli("index", str(corpus), "-w", str(ws))


def test_the_graph_forgets_pruned_files(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in FILES:
        shutil.copy(SAMPLE_DOCS / name, corpus / name)
    with Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"}) as ws:
        index_with_word_extractor(ws, [corpus])
        doc = next(d for d in ws.documents.list() if d.source.endswith("on-call-handbook.md"))
        gone = {c.id for c in ws.store.chunks.for_document(doc.id)}
        (corpus / "on-call-handbook.md").unlink()
        report = index_with_word_extractor(ws, [corpus])
        assert report.documents_removed == 1
        assert all(not set(e.chunk_ids) & gone for e in ws.store.graph.entities())
