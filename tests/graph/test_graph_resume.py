"""Kill-and-resume: a graph build killed mid-way (no cleanup, like ``kill -9``) and run again ends with
exactly the graph of an uninterrupted build — same entities, relations, descriptions, mentions."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import REPO, SAMPLE_DOCS
from tests.graph.graph_fakes import WordExtractor, graph_snapshot

from kgrag import Workspace
from kgrag.graph.build.builder import GraphBuildStats, build_graph
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.indexing import SilentProgress

MAX_TOKENS = 60
BATCH = 32

SCRIPT = f"""
import os, sys
from collections.abc import Sequence
from kgrag import Workspace
from kgrag.graph.build.builder import GraphBuildStats, build_graph
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.indexing import SilentProgress
from tests.graph.graph_fakes import WordExtractor

class DyingSummarizer(ExtractiveSummarizer):
    def __init__(self, calls):
        super().__init__({MAX_TOKENS})
        self.calls = calls
    def summarize(self, name: str, descriptions: Sequence[str]) -> str:
        self.calls -= 1
        if self.calls < 0:
            os._exit(4)
        return super().summarize(name, descriptions)

where, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
ws = Workspace.open(where, embedding={{"provider": "fake"}}, graph={{"extractor": "none"}})
extractor = WordExtractor(exit_after=n if mode == "extract" else None)
summarizer = DyingSummarizer(n if mode == "summarize" else 10**9)
build_graph(ws.store, extractor, summarizer, SilentProgress(), batch_chunks={BATCH},
            embedder=ws.components.embedder())
"""


def _workspace(path: Path) -> Workspace:
    ws = Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"})
    ws.index([SAMPLE_DOCS])
    return ws


def _build(ws: Workspace) -> GraphBuildStats:
    return build_graph(
        ws.store,
        WordExtractor(),
        ExtractiveSummarizer(MAX_TOKENS),
        SilentProgress(),
        batch_chunks=BATCH,
        embedder=ws.components.embedder(),
    )


def _killed_run(path: Path, mode: str, n: int) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    script = path.parent / "build_graph_script.py"
    script.write_text(SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(path), mode, str(n)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode


@pytest.fixture(scope="module")
def clean_snapshot(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    ws = _workspace(tmp_path_factory.mktemp("clean") / "ws")
    report = _build(ws)
    assert report.chunks_extracted == ws.store.chunks.count()
    snapshot = graph_snapshot(ws.store)
    ws.close()
    return snapshot


@pytest.mark.parametrize(("mode", "n"), [("extract", 70), ("summarize", 3)])
def test_killed_build_resumes_to_the_same_graph(
    tmp_path: Path, clean_snapshot: dict[str, object], mode: str, n: int
) -> None:
    ws = _workspace(tmp_path / "ws")
    total = ws.store.chunks.count()
    ws.close()
    code = _killed_run(tmp_path / "ws", mode, n)
    assert code == (3 if mode == "extract" else 4)
    ws = Workspace.open(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"})
    done_before = ws.store.graph.counts()["chunks_extracted"]
    if mode == "extract":
        assert done_before == (n // BATCH) * BATCH  # whole batches survive, the partial one does not
    else:  # aggregates are rebuilt once, after the last batch: the kill hit that rebuild
        assert done_before == total and ws.store.graph.stale_entity_ids()
    report = _build(ws)
    assert report.chunks_extracted == total - done_before  # only what was missing
    assert graph_snapshot(ws.store) == clean_snapshot
    assert not ws.store.graph.stale_entity_ids()
    ws.close()


def test_rerun_after_complete_build_does_nothing(tmp_path: Path, clean_snapshot: dict[str, object]) -> None:
    ws = _workspace(tmp_path / "ws")
    _build(ws)
    again = _build(ws)
    assert again.chunks_extracted == 0 and again.graph_texts_embedded == 0
    assert graph_snapshot(ws.store) == clean_snapshot
    ws.close()


def test_the_same_files_from_another_folder_give_the_same_descriptions(tmp_path: Path) -> None:
    """Document ids are hashes of paths; the graph's descriptions must not follow their order."""
    import shutil

    from tests.helpers import index_with_word_extractor

    graphs = []
    for folder in ("a/docs", "elsewhere/copied/pages"):
        docs = tmp_path / folder
        shutil.copytree(SAMPLE_DOCS, docs)
        with Workspace.init(tmp_path / folder.replace("/", "-"), embedding={"provider": "fake"}) as ws:
            index_with_word_extractor(ws, [docs])
            entities = {e.key: e.description for e in ws.store.graph.entities()}
            keys = {e.id: e.key for e in ws.store.graph.entities()}
            relations = {
                (keys[r.source_id], keys[r.target_id], r.label): r.description for r in ws.store.graph.relations()
            }
        graphs.append((entities, relations))
    (first, first_relations), (second, second_relations) = graphs
    assert sum("\n" in d for d in first.values()) > 10  # descriptions joined from several documents
    assert first == second and first_relations == second_relations
