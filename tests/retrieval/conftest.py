"""Fixtures of the retrieval-seam tests: a small workspace with chunks, vectors and a graph (fake
embedder, word extractor: no model loads), and a toy pipeline plug-in installed through a temporary
entry point."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.helpers import index_with_word_extractor

from kgrag import Workspace

DOCS = ("team-platform.md", "shale-storage-layer.md", "product-kestrel.md", "expense-and-travel-policy.md")

TOY_PLUGIN = '''
"""A pipeline plug-in as a third party would write it: its own step, kgrag's steps, one factory."""

import time
from dataclasses import dataclass

from kgrag.config import PipelineBaseSettings
from kgrag.retrieval import Pipeline
from kgrag.retrieval.steps import BM25Search, Hydrate, TakeTop, UseStream


class ToySettings(PipelineBaseSettings):
    shout: bool = False


@dataclass(frozen=True)
class MarkToy:
    name: str = "mark_toy"

    def run(self, state, env):
        started = time.perf_counter()
        for item in state.items:
            item.metadata["toy"] = True
        state.record(self.name, {}, len(state.items), started)


def toy_pipeline(name, config):
    pool = config.retrieval.pool_for(name)
    shout = config.retrieval.pipeline_settings(name, ToySettings).shout
    description = "TOY PIPELINE" if shout else "Toy pipeline from a plug-in."
    return Pipeline(name, description, (BM25Search(pool=pool), UseStream("bm25"), TakeTop(), MarkToy(), Hydrate()))


toy_pipeline.settings_model = ToySettings
'''


@pytest.fixture(scope="module")
def graph_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """Chunks, fake vectors and a word-extractor graph over four sample documents (read-only)."""
    root = tmp_path_factory.mktemp("seams")
    docs = root / "docs"
    docs.mkdir()
    for name in DOCS:
        shutil.copy(SAMPLE_DOCS / name, docs / name)
    ws = Workspace.init(root / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"})
    index_with_word_extractor(ws, [docs])
    assert ws.store.graph.counts()["entities"] > 0
    yield ws
    ws.close()


@pytest.fixture
def toy_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``toy_plugin`` installed as distribution ``toy-plugin`` with a ``kgrag.pipelines`` entry point
    ``toy``; the directory is on ``sys.path`` for this test only. Returns the directory (for
    subprocesses' PYTHONPATH)."""
    root = tmp_path / "site"
    (root / "toy_plugin").mkdir(parents=True)
    (root / "toy_plugin" / "__init__.py").write_text(TOY_PLUGIN, encoding="utf-8")
    dist = root / "toy_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-plugin\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[kgrag.pipelines]\ntoy = toy_plugin:toy_pipeline\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    yield root
    sys.modules.pop("toy_plugin", None)
