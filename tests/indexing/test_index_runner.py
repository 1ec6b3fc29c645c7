"""The indexing runner: stages run in pipeline order, unknown names fail naming ``indexing.pipeline``,
one name per stage across progress, timings and ledger, and pipelines compose (``fast`` then
``standard`` ends where ``standard`` alone does)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.graph.graph_fakes import WordExtractor, graph_snapshot

from kgrag import Workspace
from kgrag.core.errors import ConfigError
from kgrag.core.records import DocumentStatus
from kgrag.core.stages import ledger_stage, timing_key
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.indexing import IndexContext, IndexRegistries, IndexReport, run_pipeline
from kgrag.indexing.pipelines import FAST, NO_GRAPH, STANDARD
from kgrag.testing.fake_stage import RecordingStage

DOCS = ("team-platform.md", "team-sre.md", "product-kestrel.md")


@dataclass
class RecordingProgress:
    """Keeps every label a stage started, in order."""

    started: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def start(self, stage: str, total: int | None) -> None:
        self.started.append(stage)

    def advance(self, stage: str, amount: int = 1) -> None:
        return None

    def note(self, message: str) -> None:
        self.notes.append(message)

    def finish(self, stage: str) -> None:
        return None


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    target = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, target, ignore=lambda d, names: [n for n in names if n not in DOCS])
    return target


def _workspace(path: Path) -> Workspace:
    return Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"})


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = _workspace(tmp_path / "ws")
    yield workspace
    workspace.close()


def _run(ws: Workspace, docs: Path, pipeline: str, progress: RecordingProgress | None = None) -> IndexReport:
    context = IndexContext(
        ws.store,
        ws.config,
        ws.components.chunk_plan()[0],
        ws.components.embedder(),
        [docs],
        progress=progress or RecordingProgress(),
        extractor=WordExtractor(),
        summarizer=ExtractiveSummarizer(60),
    )
    return run_pipeline(context, pipeline, ws.indexing.registries)


def _snapshot(ws: Workspace) -> tuple[object, ...]:
    docs = sorted((d.source, d.status.value) for d in ws.store.documents.list())
    chunks = sorted((c.id, c.doc_id, c.text) for c in ws.store.chunks.iter_all())
    return docs, chunks, ws.store.vectors.count(ws.components.embedding_model_id), graph_snapshot(ws.store)


def test_stages_run_in_pipeline_order(ws: Workspace, docs: Path) -> None:
    ran: list[str] = []
    stages: list[RecordingStage[IndexContext]] = []

    def factory(name: str) -> Callable[[], RecordingStage[IndexContext]]:
        def make() -> RecordingStage[IndexContext]:
            stages.append(RecordingStage(name, ran))
            return stages[-1]

        return make

    for name in ("c", "a", "b"):
        ws.indexing.registries.stages.register(name, factory(name))
    ws.indexing.registries.pipelines.register("abc", lambda: ("c", "a", "discover", "b"))
    report = ws.index([docs], pipeline="abc")
    assert ran == ["c", "a", "b"]
    assert list(report.seconds) == ["c", "a", "discover", "b"]  # the runner times each stage by its name
    assert report.files_seen == len(DOCS) and ws.store.chunks.count() == 0  # no ingest stage: nothing written
    context = stages[0].contexts[0]
    assert context is stages[2].contexts[0] and context.stages_run == ["c", "a", "discover", "b"]
    assert context.files == sorted(context.files) and len(context.files) == len(DOCS)


def test_unknown_stage_names_the_config_field(ws: Workspace, docs: Path) -> None:
    ws.indexing.registries.pipelines.register("typo", lambda: ("discover", "ingset", "finalize"))
    with pytest.raises(ConfigError, match=r"indexing\.pipeline 'typo': unknown indexing stage 'ingset'"):
        ws.index([docs], pipeline="typo")
    assert ws.store.documents.list() == []  # checked before any stage ran
    with pytest.raises(ConfigError, match=r"indexing\.pipeline: unknown indexing pipeline 'nope'.*standard"):
        ws.index([docs], pipeline="nope")


def test_unknown_pipeline_in_config_is_rejected_at_load(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"indexing\.pipeline"):
        Workspace.init(tmp_path / "ws", indexing={"pipeline": "quick"})


def test_a_stage_must_carry_its_registered_name(ws: Workspace, docs: Path) -> None:
    class Mislabelled:
        name = "something-else"

        def run(self, ctx: IndexContext) -> None:
            return None

    ws.indexing.registries.stages.register("mislabelled", Mislabelled)
    ws.indexing.registries.pipelines.register("bad", lambda: ("discover", "mislabelled"))
    with pytest.raises(ConfigError, match="calls itself 'something-else'"):
        ws.index([docs], pipeline="bad")


def test_one_name_per_stage_in_progress_timings_and_ledger(ws: Workspace, docs: Path) -> None:
    progress = RecordingProgress()
    report = _run(ws, docs, "standard", progress)
    assert set(progress.started) <= set(STANDARD) and {"ingest", "embed", "extract"} <= set(progress.started)
    assert list(report.seconds)[-1] == "finalize"
    for key in report.seconds:
        stage, _, part = key.partition(".")
        assert stage in STANDARD and key == timing_key(stage, part or None)
    assert {"ingest.load", "embed.model", "extract.merge"} <= set(report.seconds)
    # ledger names stored in users' databases stay as they were
    assert ledger_stage("extract") == "index.extract"
    assert ledger_stage("extract", "glean") == "index.glean"
    assert ledger_stage("refresh", "summarize") == ledger_stage("extract", "summarize") == "index.summarize"
    assert ledger_stage("reports", "map") == "index.reports.map"


def test_fast_is_lexical_and_standard_completes_it(tmp_path: Path, docs: Path) -> None:
    alone = _workspace(tmp_path / "alone")
    _run(alone, docs, "standard")
    expected = _snapshot(alone)
    alone.close()

    ws = _workspace(tmp_path / "ws")
    fast = _run(ws, docs, "fast")
    assert fast.documents_new == len(DOCS) and fast.texts_embedded == 0 and fast.chunks_extracted == 0
    assert {d.status for d in ws.store.documents.list()} == {DocumentStatus.CHUNKED}  # truthful: no vectors
    assert ws.retrieve("Who leads the Platform team?", pipeline="bm25").items  # searchable at once
    assert ws.store.vectors.count(ws.components.embedding_model_id) == 0 and ws.store.graph.counts()["entities"] == 0
    standard = _run(ws, docs, "standard")
    assert standard.documents_new == 0 and standard.texts_embedded and standard.chunks_extracted
    assert _snapshot(ws) == expected
    assert not _run(ws, docs, "standard").did_work
    ws.close()


def test_fast_never_promotes_a_document_whose_graph_is_missing(ws: Workspace, docs: Path) -> None:
    _run(ws, docs, "no-graph")
    assert {d.status for d in ws.store.documents.list()} == {DocumentStatus.EMBEDDED}  # graph still to extract
    _run(ws, docs, "fast")
    assert {d.status for d in ws.store.documents.list()} == {DocumentStatus.EMBEDDED}
    _run(ws, docs, "standard")
    assert {d.status for d in ws.store.documents.list()} == {DocumentStatus.INDEXED}


def test_no_graph_extracts_nothing_but_drops_provenance_of_changed_documents(ws: Workspace, docs: Path) -> None:
    _run(ws, docs, "standard")
    target = docs / "product-kestrel.md"
    doc = ws.store.documents.by_source(str(target.resolve()))
    assert doc is not None
    old_chunks = {c.id for c in ws.store.chunks.for_document(doc.id)}
    assert any(old_chunks & set(e.chunk_ids) for e in ws.store.graph.entities())
    target.write_text("Quillonar replaced everything here.", encoding="utf-8")
    os.utime(target, (time.time() + 5, time.time() + 5))
    report = _run(ws, docs, "no-graph")
    assert report.documents_changed == 1 and report.chunks_extracted == 0
    assert ws.store.graph.entity_by_key("quillonar") is None  # nothing extracted
    assert not any(old_chunks & set(e.chunk_ids) for e in ws.store.graph.entities())  # provenance dropped
    chunk_ids = {c.id for c in ws.store.chunks.iter_all()}
    assert all(set(e.chunk_ids) <= chunk_ids for e in ws.store.graph.entities())
    assert not ws.store.graph.stale_entity_ids()
    assert NO_GRAPH[-1] == FAST[-1] == "finalize"


def test_without_an_extractor_no_graph_and_standard_index_fully(ws: Workspace, docs: Path) -> None:
    report = ws.index([docs], pipeline="no-graph")
    assert report.texts_embedded and {d.status for d in ws.store.documents.list()} == {DocumentStatus.INDEXED}


def test_registries_are_per_workspace(tmp_path: Path) -> None:
    first, second = _workspace(tmp_path / "a"), _workspace(tmp_path / "b")
    first.indexing.registries.pipelines.register("mine", lambda: ("discover",))
    assert "mine" in first.indexing.registries.pipelines and "mine" not in second.indexing.registries.pipelines
    assert "mine" not in IndexRegistries.builtin().pipelines
    first.close()
    second.close()
