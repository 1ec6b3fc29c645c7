"""Incremental, transactional, resumable indexing and removal."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.core.records import DocumentStatus


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_rerun_on_unchanged_files_does_no_work(fake_ws: Workspace, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs / "a.md", "# A\n\nKestrel ingests telemetry. It runs in Lisbon.")
    _write(docs / "b.txt", "Osprey sensors report every fifteen minutes.")
    first = fake_ws.index([docs])
    assert (first.documents_new, first.texts_embedded) == (2, 2)
    second = fake_ws.index([docs])
    assert not second.did_work and second.documents_unchanged == 2
    assert fake_ws.store.documents.count_by_status() == {"indexed": 2}


def test_changed_file_is_reprocessed_and_old_chunks_go(fake_ws: Workspace, tmp_path: Path) -> None:
    path = _write(tmp_path / "docs" / "a.md", "Alpha beta gamma. " * 5)
    fake_ws.index([path])
    old = {c.id for c in fake_ws.store.chunks.iter_all()}
    time.sleep(0.01)
    _write(path, "Completely different words now. Delta epsilon.")
    report = fake_ws.index([path])
    assert report.documents_changed == 1
    new = {c.id for c in fake_ws.store.chunks.iter_all()}
    assert not old & new
    assert fake_ws.retrieve("alpha", "bm25", 3).items == []


def test_touched_but_identical_file_is_not_rechunked(fake_ws: Workspace, tmp_path: Path) -> None:
    path = _write(tmp_path / "a.md", "Same text. Twice the same.")
    fake_ws.index([path])
    os.utime(path, (time.time() + 5, time.time() + 5))
    report = fake_ws.index([path])
    assert report.documents_unchanged == 1 and report.chunks_written == 0


def test_remove_by_path_and_by_id(fake_ws: Workspace, tmp_path: Path) -> None:
    a = _write(tmp_path / "a.md", "Heron dashboards show alerts.")
    b = _write(tmp_path / "b.md", "Tern is a message bus.")
    fake_ws.index([a, b])
    removed, unknown = fake_ws.remove([str(a), "nope"])
    assert removed == [str(a.resolve())] and unknown == ["nope"]
    doc_id = fake_ws.store.documents.list()[0].id
    fake_ws.remove([doc_id])
    assert fake_ws.store.chunks.count() == 0
    assert fake_ws.retrieve("tern", "bm25", 3).items == []


def test_json_records_are_documents_and_vanished_records_are_removed(tmp_path: Path) -> None:
    ws = Workspace.init(
        tmp_path / "ws",
        embedding={"provider": "fake"},
        graph={"extractor": "none"},
        documents={"loaders": {".jsonl": {"text_field": "context"}}},
    )
    data = tmp_path / "corpus.jsonl"
    data.write_text("\n".join(json.dumps({"context": f"Record number {i} text."}) for i in range(3)))
    assert ws.index([data]).documents_new == 3
    data.write_text(json.dumps({"context": "Record number 0 text."}))
    report = ws.index([data])
    assert report.documents_removed == 2 and report.documents_unchanged == 1
    ws.close()


def test_bad_files_are_reported_and_the_rest_indexed(fake_ws: Workspace, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs / "good.md", "Good content about Kestrel.")
    _write(docs / "empty.txt", "   \n")
    (docs / "binary.txt").write_bytes(b"\x00\x01\x02 binary")
    _write(docs / "broken.json", "{not json")
    (docs / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    report = fake_ws.index([docs])
    assert report.documents_new == 1
    problems = {Path(p.path).name: p.reason for p in report.problems}
    assert set(problems) == {"empty.txt", "binary.txt", "broken.json", "latin1.txt"}
    assert all(reason for reason in problems.values())
    statuses = fake_ws.store.documents.count_by_status()
    assert statuses == {"indexed": 1, "failed": 4}
    assert all(d.error for d in fake_ws.store.documents.list(DocumentStatus.FAILED))


def test_too_large_file_is_skipped(tmp_path: Path) -> None:
    ws = Workspace.init(
        tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"}, documents={"max_file_mb": 0.001}
    )
    big = _write(tmp_path / "big.txt", "word " * 1000)
    report = ws.index([big])
    assert report.documents_new == 0
    assert [problem.path for problem in report.problems] == [str(big)]
    assert "larger than documents.max_file_mb" in report.problems[0].reason
    assert "0.00477 MiB" in report.problems[0].reason  # the size is shown, not rounded to 0.0
    assert [(d.source, d.status) for d in ws.store.documents.list()] == [(str(big), DocumentStatus.FAILED)]
    ws.close()


KILL_SCRIPT = """
import sys
from pathlib import Path
from kgrag.config import load_config
from kgrag.indexing import ingest
from kgrag.indexing.stages import embed
from kgrag.models.embeddings import FakeEmbedder
from kgrag.store import open_store
from kgrag.workspace import Components, Workspace

class AnnouncingFake(FakeEmbedder):
    def embed(self, texts):
        print("batch", flush=True)
        return super().embed(texts)

original = ingest.Ingestor._ingest_document
def announcing(self, *args):
    original(self, *args)
    print("doc", flush=True)
ingest.Ingestor._ingest_document = announcing
embed.COMMIT_BLOCK = 16

directory = Path(sys.argv[1])
config = load_config(directory)
ws = Workspace(Components(directory, config, open_store(config.store, directory), embedder_factory=AnnouncingFake))
ws.index([sys.argv[2]])
print("finished", flush=True)
"""


def _snapshot(ws: Workspace) -> tuple[object, ...]:
    chunks = sorted((c.id, c.doc_id, c.text) for c in ws.store.chunks.iter_all())
    docs = sorted((d.source, d.status.value) for d in ws.store.documents.list())
    ids, _ = ws.store.vectors.chunk_matrix(ws.components.embedding_model_id)
    return docs, chunks, sorted(ids), ws.store.vectors.count(ws.components.embedding_model_id)


@pytest.mark.parametrize(("marker", "count"), [("doc", 10), ("batch", 4)])
def test_kill_midway_then_resume_gives_the_clean_result(tmp_path: Path, marker: str, count: int) -> None:
    """SIGKILL the indexer after some documents (ingest stage) or one embedding block, then resume."""
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    ws_dir = tmp_path / "ws"
    Workspace.init(ws_dir).close()
    (ws_dir / "kgrag.toml").write_text('[embedding]\nprovider = "fake"\nbatch_size = 4\n[graph]\nextractor = "none"\n')
    proc = subprocess.Popen(
        [sys.executable, "-c", KILL_SCRIPT, str(ws_dir), str(docs)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    seen = 0
    for line in proc.stdout:
        seen += line.strip() == marker
        if seen >= count:
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait()
    with Workspace.open(ws_dir) as ws:
        partial = _snapshot(ws)
        ws.index([docs])
        resumed = _snapshot(ws)
    clean_dir = tmp_path / "clean"
    Workspace.init(clean_dir).close()
    (clean_dir / "kgrag.toml").write_text((ws_dir / "kgrag.toml").read_text())
    with Workspace.open(clean_dir) as clean:
        clean.index([docs])
        expected = _snapshot(clean)
    assert partial != expected  # the kill really interrupted the run
    assert resumed == expected


def test_file_vanishing_after_discovery_is_reported_not_fatal(fake_ws: Workspace, tmp_path: Path) -> None:
    from kgrag.indexing import ingest

    keep = _write(tmp_path / "docs" / "keep.md", "Kestrel keeps running.")
    gone = _write(tmp_path / "docs" / "gone.md", "This file disappears.")
    original = ingest.file_fingerprint

    def vanish(path: Path) -> str:
        if path.name == "gone.md":
            gone.unlink(missing_ok=True)
        return original(path)

    ingest.file_fingerprint = vanish  # type: ignore[assignment]
    try:
        report = fake_ws.index([tmp_path / "docs"])
    finally:
        ingest.file_fingerprint = original  # type: ignore[assignment]
    assert report.documents_new == 1 and keep.exists()
    assert [Path(p.path).name for p in report.problems] == ["gone.md"]
