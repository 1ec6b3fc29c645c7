"""The Ray engine builds the same index as the local engine, with the same LLM calls, and resumes after a
worker failure doing only the lost work. One local Ray (2 CPUs, 127.0.0.1) serves the module: it is
started by kgrag's own session code and stopped at the end (Ray costs ~500 MB and ~15 s to start)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from tests.conftest import REPO, SAMPLE_DOCS
from tests.graph.graph_fakes import CrashingWordExtractor, WordExtractor
from tests.helpers import index_with_word_extractor
from tests.reliability.harness import dump_tables
from tests.services import import_service

from kgrag import Workspace
from kgrag.config import EmbeddingConfig
from kgrag.core.errors import KgragError
from kgrag.core.progress import SilentProgress
from kgrag.core.registries import Registries
from kgrag.documents.records import LoadedDocument
from kgrag.graph.types import Extractor
from kgrag.indexing import IndexReport
from kgrag.models.embeddings import FakeEmbedder
from kgrag.models.llm import create_llm_client
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.workspace import kinds
from kgrag.workspace.components import Components

import_service("ray.data", "Ray", "Ray is not installed (pip install 'kgrag[ray]'); Ray engine tests skipped")
pytestmark = pytest.mark.slow

SMALL_BATCHES = {"engines": {"ray": {"extract_batch": 4, "embed_batch": 64, "load_batch": 2}}}


@pytest.fixture(scope="module")
def ray_up() -> Iterator[None]:
    """A local Ray for the module, started through the engine's own session (so the tests' workers can
    import ``tests`` too, the repository root joins PYTHONPATH first). When the module is done, the
    temporary directory the session made for Ray is gone."""
    from kgrag.indexing.engines.ray_session import ray_session
    from kgrag.indexing.engines.ray_settings import RayEngineSettings

    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), previous) if p)
    made: list[str] = []

    def recording_mkdtemp(*args: Any, **kwargs: Any) -> str:
        made.append(real_mkdtemp(*args, **kwargs))
        return made[-1]

    real_mkdtemp = tempfile.mkdtemp
    try:
        with ExitStack() as session:
            with mock.patch.object(tempfile, "mkdtemp", recording_mkdtemp):
                session.enter_context(ray_session(RayEngineSettings(num_cpus=2), SilentProgress()))
            yield
        assert made and not any(Path(path).exists() for path in made), made
    finally:
        if previous is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = previous


def _index(directory: Path, engine: str, extractor: Extractor, **indexing: Any) -> IndexReport:
    with Workspace.init(directory, embedding={"provider": "fake"}, indexing=indexing) as ws:
        return index_with_word_extractor(ws, [SAMPLE_DOCS], "standard", extractor=extractor, engine=engine)


def test_ray_builds_the_same_index_as_local(tmp_path: Path, ray_up: None) -> None:
    local = _index(tmp_path / "local", "local", WordExtractor())
    remote = _index(tmp_path / "ray", "ray", WordExtractor(), **SMALL_BATCHES)
    assert local.chunks_written > 100 and local.entities > 100
    tables = dump_tables(tmp_path / "local" / "kgrag.sqlite3")
    assert dump_tables(tmp_path / "ray" / "kgrag.sqlite3") == tables  # chunks, entities, relations, mentions, vectors
    assert {"chunks", "embeddings", "entities", "relations", "entity_mentions"} <= set(tables)
    assert (remote.chunks_written, remote.texts_embedded, remote.graph_texts_embedded) == (
        local.chunks_written,
        local.texts_embedded,
        local.graph_texts_embedded,
    )
    assert "engine.ray-start" in remote.seconds
    again = _index(tmp_path / "ray", "ray", WordExtractor(), **SMALL_BATCHES)
    assert not again.did_work  # a re-run on Ray does nothing twice
    # Ray Data's usage poller (a daemon thread polling Prometheus forever) must not start: its logged
    # tracebacks race ast.parse in other threads on CPython 3.11 (see ray_session._usage_stats_off).
    assert "data-usage-metrics-poller" not in {thread.name for thread in threading.enumerate()}


def _llm_workspace(directory: Path, responder: ExtractionResponder, engine: str) -> Workspace:
    config = {"embedding": {"provider": "fake"}, "graph": {"extractor": "llm", "max_description_tokens": 40}}
    Workspace.init(directory, **config, llm={"provider": "scripted", "max_concurrency": 3}).close()
    ws = Workspace.open(directory, **config, llm={"provider": "scripted", "max_concurrency": 3})
    parts = ws.components
    wired = Components(
        parts.path,
        parts.config,
        parts.store,
        llm_factory=lambda: create_llm_client(parts.config.llm, parts.store, provider=responder.provider()),
    )
    return Workspace(wired)


def _extract_stage(report: IndexReport) -> dict[str, Any]:
    stages: dict[str, dict[str, Any]] = report.to_dict()["stages"]  # type: ignore[assignment]
    return stages["extract"]


def _sent_calls(ws: Workspace) -> int:
    return sum(t.calls - t.cache_hits for t in ws.llm_usage().by_stage.values())


def test_llm_extraction_on_ray_sends_the_same_calls(tmp_path: Path, ray_up: None) -> None:
    local_responder, ray_responder = ExtractionResponder(), ExtractionResponder()
    with _llm_workspace(tmp_path / "local", local_responder, "local") as ws:
        local_report = ws.index([SAMPLE_DOCS], engine="local")
        local_calls = _sent_calls(ws)
    with _llm_workspace(tmp_path / "ray", ray_responder, "ray") as ws:
        progress = SilentProgress()
        ray_report = ws.index([SAMPLE_DOCS], progress, engine="ray")
        ray_calls = _sent_calls(ws)
    assert local_calls > 20 and ray_calls == local_calls
    # the extractor's unit counters reach the report on Ray as locally (the LLM extractor runs on the driver)
    counters = {key: value for key, value in _extract_stage(local_report).items() if key.startswith("llm_")}
    assert counters["llm_units"] > 1 and counters == {k: _extract_stage(ray_report)[k] for k in counters}
    assert sum(ray_responder.calls.values()) == 0  # every request was answered by the copy in the Ray actor
    assert any("extraction (llm:" in note and "runs on the driver" in note for note in progress.notes)
    local = dump_tables(tmp_path / "local" / "kgrag.sqlite3")
    remote = dump_tables(tmp_path / "ray" / "kgrag.sqlite3")
    assert remote == local  # the graph, summaries and the response cache (the ledger is compared by count)


def test_failed_ray_run_resumes_with_only_the_lost_work(tmp_path: Path, ray_up: None) -> None:
    clean = _index(tmp_path / "clean", "local", WordExtractor())
    with sqlite3.connect(tmp_path / "clean" / "kgrag.sqlite3") as db:  # extraction follows ingestion order
        last_chunk = db.execute("SELECT id FROM chunks ORDER BY rowid DESC LIMIT 1").fetchone()[0]
    switch = tmp_path / "crash-switch"
    switch.write_text("on")
    crashing = CrashingWordExtractor(str(switch), frozenset({last_chunk}))
    with pytest.raises(KgragError, match=r"stage extract failed on a worker.*re-running"):
        _index(tmp_path / "ws", "ray", crashing, **SMALL_BATCHES)
    with Workspace.open(tmp_path / "ws") as ws:
        left = len(ws.store.graph.chunks_needing_extraction("words:v1"))
    assert 0 < left < clean.chunks_written  # batches before the failure were kept
    switch.unlink()
    resumed = _index(tmp_path / "ws", "ray", crashing, **SMALL_BATCHES)
    assert resumed.chunks_extracted == left  # only the lost work was redone
    assert resumed.chunks_written == 0 and resumed.texts_embedded == 0
    assert dump_tables(tmp_path / "ws" / "kgrag.sqlite3") == dump_tables(tmp_path / "clean" / "kgrag.sqlite3")


def _load_adoc(path: Path, data: bytes, cfg: Any) -> list[LoadedDocument]:
    """AsciiDoc, read as its text without title underlines (the title is the first line)."""
    text = data.decode("utf-8").replace("=====\n", "")
    return [LoadedDocument.from_text(str(path.resolve()), text.splitlines()[0], text, {"format": "adoc"})]


class SignedEmbedder(FakeEmbedder):
    """The hashing embedder with every vector negated: vectors no built-in embedder gives."""

    def embed(self, texts: Any) -> Any:
        return -super().embed(texts)


def _signed(cfg: EmbeddingConfig) -> SignedEmbedder:
    return SignedEmbedder(cfg.dimension or 64)


def _index_adoc(directory: Path, docs: Path, engine: str) -> IndexReport:
    """``docs`` indexed by a workspace that registered the ``.adoc`` loader and the ``signed`` embedder."""
    registries = Registries()
    kinds.loaders(registries).register(".adoc", _load_adoc)
    kinds.embedders(registries).register("signed", _signed)
    settings: dict[str, Any] = {"embedding": {"provider": "signed"}, "documents": {"include": ["*.adoc"]}}
    with Workspace.init(directory, registries=registries, **settings, indexing=SMALL_BATCHES) as ws:
        return ws.index([docs], pipeline="no-graph", engine=engine)


def test_a_workspace_loader_and_embedder_are_used_on_ray_workers(tmp_path: Path, ray_up: None) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(3):
        (docs / f"guide-{n}.adoc").write_text(f"Guide {n}\n=====\nKestrel {n} stores telemetry in Shale.\n")
    remote = _index_adoc(tmp_path / "ray", docs, "ray")
    assert remote.documents_new == 3 and remote.texts_embedded == 3 and not remote.problems
    _index_adoc(tmp_path / "local", docs, "local")
    tables = dump_tables(tmp_path / "ray" / "kgrag.sqlite3")
    assert tables == dump_tables(tmp_path / "local" / "kgrag.sqlite3")  # the same loader's text, the same vectors


def test_snippet_includes_are_read_within_the_folder_being_indexed_on_ray(tmp_path: Path, ray_up: None) -> None:
    """The workers get the driver's folder limit: ``notes/part.inc`` lies in the indexed folder but outside
    the page's own, so a worker reading with no limit of its own (the page's folder) would refuse it."""
    site = tmp_path / "site"
    (site / "docs").mkdir(parents=True)
    (site / "notes").mkdir()
    (tmp_path / "secret.md").write_text("PRIVATE NOTE\n", encoding="utf-8")
    (site / "notes" / "part.inc").write_text("Kestrel keeps telemetry for 30 days.\n", encoding="utf-8")
    (site / "docs" / "index.md").write_text('# Home\n\n--8<-- "notes/part.inc"\n--8<-- "../secret.md"\n')
    texts = {}
    for engine in ("local", "ray"):
        with Workspace.init(tmp_path / engine, embedding={"provider": "fake"}, indexing=SMALL_BATCHES) as ws:
            report = ws.index([site], pipeline="fast", engine=engine)
            texts[engine] = [chunk.text for chunk in ws.store.chunks.iter_all()]
        assert [note.reason.split(" (")[0] for note in report.notes] == ["includes left out: ../secret.md"]
    assert texts["ray"] == texts["local"] and "30 days" in texts["local"][0] and "PRIVATE" not in texts["local"][0]
