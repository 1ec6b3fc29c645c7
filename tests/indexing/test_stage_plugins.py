"""A stage from outside the package: registered by an installed plug-in (entry points, as ``pip install``
would create them) or programmatically on a workspace, named in an indexing pipeline, and visible by
its name in the progress, the timings and the report of the run."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.indexing.test_index_runner import RecordingProgress

from kgrag import Workspace
from kgrag.core.errors import ConfigError
from kgrag.core.stages import progress_label, timing_key
from kgrag.indexing import IndexContext

TOY_MODULE = '''
"""A toy indexing stage shipped by a plug-in distribution."""

from kgrag.core.stages import progress_label, timing_key
from kgrag.indexing import IndexContext


class ToyStage:
    name = "toy"

    def run(self, ctx: IndexContext) -> None:
        label = progress_label(self.name)
        ctx.progress.start(label, len(ctx.files))
        ctx.report.warnings.append(f"toy saw {len(ctx.files)} files and {ctx.store.chunks.count()} chunks")
        ctx.report.add_time(timing_key(self.name, "count"), 0.0)
        ctx.progress.finish(label)


PIPELINE = ("discover", "ingest", "toy", "embed", "finalize")


def words_extractor(config, client, progress):
    from tests.graph.graph_fakes import WordExtractor

    return WordExtractor(name="toy-words")
'''

ENTRY_POINTS = """[kgrag.stages]
toy = toy_plugin_stages:ToyStage

[kgrag.index_pipelines]
with-toy = toy_plugin_stages:PIPELINE

[kgrag.extractors]
toy-words = toy_plugin_stages:words_extractor
"""


@pytest.fixture
def toy_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An installed distribution ``toy_plugin`` declaring a stage and a pipeline, on ``sys.path``."""
    site = tmp_path / "site"
    info = site / "toy_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy_plugin\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    (site / "toy_plugin_stages.py").write_text(TOY_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    return "with-toy"


def test_plugin_stage_runs_in_a_configured_pipeline(toy_plugin: str, tmp_path: Path) -> None:
    ws = Workspace.init(
        tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"}, indexing={"pipeline": toy_plugin}
    )
    assert ws.config.indexing.pipeline == "with-toy"  # the config accepted the plug-in's pipeline name
    assert ws.indexing.registries.stages.entry("toy").origin == "plugin:toy_plugin"
    progress = RecordingProgress()
    report = ws.index([SAMPLE_DOCS], progress)
    assert progress.started[progress.started.index("ingest") + 1] == "toy"  # ran after ingest, by its name
    assert "toy" in report.seconds and timing_key("toy", "count") in report.seconds
    assert list(report.seconds).index("toy") < list(report.seconds).index("embed")
    assert any(w.startswith(f"toy saw {report.files_seen} files and ") for w in report.warnings)
    assert report.texts_embedded  # the rest of the pipeline ran too
    ws.close()


def test_plugin_extractor_is_chosen_by_graph_extractor(toy_plugin: str, tmp_path: Path) -> None:
    ws = Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "toy-words"})
    report = ws.index([SAMPLE_DOCS])
    assert report.chunks_extracted == ws.store.chunks.count() and report.entities > 0
    assert ws.store.graph.counts()["entities"] == report.entities
    ws.close()


def test_unknown_extractor_is_rejected_at_load(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"graph\.extractor.*unknown graph extractor 'spacy'"):
        Workspace.init(tmp_path / "ws", graph={"extractor": "spacy"})


class CountingStage:
    """A stage defined by the caller and registered on one workspace only."""

    name = "count-chunks"

    def __init__(self) -> None:
        self.seen: list[int] = []

    def run(self, ctx: IndexContext) -> None:
        ctx.progress.start(progress_label(self.name), None)
        ctx.report.warnings.append(f"{self.name}: {ctx.store.chunks.count()}")
        ctx.progress.finish(progress_label(self.name))


def test_programmatic_stage_and_pipeline(tmp_path: Path) -> None:
    ws = Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"})
    ws.indexing.registries.stages.register("count-chunks", CountingStage, summary="counts chunks")
    ws.indexing.registries.pipelines.register("counted", lambda: ("discover", "ingest", "count-chunks", "finalize"))
    progress = RecordingProgress()
    report = ws.index([SAMPLE_DOCS], progress, pipeline="counted")
    assert progress.started == ["ingest", "count-chunks"]
    assert list(report.seconds)[-2:] == ["count-chunks", "finalize"]
    assert report.warnings == [f"count-chunks: {ws.store.chunks.count()}"] and ws.store.chunks.count()
    ws.close()
