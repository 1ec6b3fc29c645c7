"""A plug-in pipeline and a plug-in reranker written outside kgrag, as a third party would: each declares
a settings model, is installed through an entry point (a real ``*.dist-info`` on ``sys.path``, which
``importlib.metadata`` reads like any installed distribution) or registered in code, is configured from
kgrag.toml, validated (a wrong type names the entry and the key), documented by the docs generator and
run. Nothing in ``src/kgrag`` knows about them."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.config import PipelineBaseSettings, configuration_markdown, load_config
from kgrag.core.context import ContextItem
from kgrag.core.errors import ConfigError
from kgrag.core.registries import Registries
from kgrag.retrieval import Pipeline
from kgrag.retrieval.steps import BM25Search, Hydrate, QueryState, TakeTop, UseStream
from kgrag.workspace import kinds

DOCS = ("team-platform.md", "shale-storage-layer.md", "product-kestrel.md", "expense-and-travel-policy.md")
QUESTION = "Where does Kestrel store its data?"
BASE_TOML = '[embedding]\nprovider = "fake"\n\n[graph]\nextractor = "none"\n'


# -- the plug-in: a pipeline with a knob ----------------------------------------------------------
class DepthSettings(PipelineBaseSettings):
    """`depth-pipe`: the first BM25 passages only."""

    depth: int = Field(2, ge=1, description="Passages the toy pipeline keeps.")


@dataclass(frozen=True)
class KeepDepth:
    depth: int
    name: str = "keep_depth"

    def run(self, state: QueryState, env: Any) -> None:
        started = time.perf_counter()
        state.items = state.items[: self.depth]
        state.record(self.name, {"depth": self.depth}, len(state.items), started)


def depth_pipeline(name: str, config: Any) -> Pipeline:
    settings = config.retrieval.pipeline_settings(name, DepthSettings)
    steps = (BM25Search(pool=config.retrieval.pool_for(name)), UseStream("bm25"), TakeTop(), KeepDepth(settings.depth))
    return Pipeline(name, "Toy plug-in: the first `depth` BM25 passages.", (*steps, Hydrate()))


depth_pipeline.settings_model = DepthSettings  # type: ignore[attr-defined]


# -- the plug-in: a reranker with a knob ------------------------------------------------------------
class TailSettings(BaseModel):
    """`tail-first`: the pool's last passages first."""

    model_config = ConfigDict(extra="forbid")
    keep: int = Field(3, ge=1, description="Passages the reranker returns at most.")


class TailFirst:
    def __init__(self, keep: int) -> None:
        self.keep = keep

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        return list(reversed(items))[: min(k, self.keep)]


def tail_first(settings: TailSettings, resources: Any) -> TailFirst:
    return TailFirst(settings.keep)


tail_first.settings_model = TailSettings  # type: ignore[attr-defined]


# -- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with chunks (fake vectors, no graph) over four sample documents."""
    root = tmp_path_factory.mktemp("plugin-settings")
    docs = root / "docs"
    docs.mkdir()
    for name in DOCS:
        shutil.copy(SAMPLE_DOCS / name, docs / name)
    (root / "ws").mkdir()
    (root / "ws" / "kgrag.toml").write_text(BASE_TOML, encoding="utf-8")
    with Workspace.open(root / "ws") as ws:
        ws.index([docs])
    return root / "ws"


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Both plug-ins installed as distribution ``toy-settings-plugin``: entry points in the
    ``kgrag.pipelines`` and ``kgrag.rerankers`` groups pointing at this module."""
    dist = tmp_path / "site" / "toy_settings_plugin-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-settings-plugin\nVersion: 0.1\n", encoding="utf-8")
    points = (
        f"[kgrag.pipelines]\ndepth-pipe = {__name__}:depth_pipeline\n\n"
        f"[kgrag.rerankers]\ntail-first = {__name__}:tail_first\n"
    )
    (dist / "entry_points.txt").write_text(points, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    yield


def _write(ws_dir: Path, extra: str) -> None:
    (ws_dir / "kgrag.toml").write_text(BASE_TOML + extra, encoding="utf-8")


def _step(result: Any, name: str) -> Any:
    return next(step for step in result.trace if step.step == name)


# -- the promises -----------------------------------------------------------------------------------
def test_configured_from_kgrag_toml_and_run(installed: None, indexed: Path) -> None:
    _write(
        indexed,
        '[retrieval.pipelines.depth-pipe]\ndepth = 1\n\n[rerank]\nprovider = "tail-first"\n\n'
        "[rerank.tail-first]\nkeep = 2\n",
    )
    with Workspace.open(indexed) as ws:
        assert ws.pipelines.entry("depth-pipe").origin == "plugin:toy-settings-plugin"
        own = ws.retrieve(QUESTION, "depth-pipe", 5)
        assert _step(own, "keep_depth").params == {"depth": 1} and len(own.items) == 1
        reranked = ws.retrieve(QUESTION, "rerank", 5)
        assert _step(reranked, "rerank").params["reranker"] == "TailFirst"
        assert len([i for i in reranked.items if i.kind == "chunk"]) == 2
        hybrid = ws.retrieve(QUESTION, "hybrid", 5)  # the reranker put the hybrid pool's tail first
        assert reranked.items[0].id != hybrid.items[0].id
    _write(indexed, "")
    with Workspace.open(indexed) as ws:  # no table: the model's defaults
        assert _step(ws.retrieve(QUESTION, "depth-pipe", 5), "keep_depth").params == {"depth": 2}


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        (
            '[retrieval.pipelines.depth-pipe]\ndepth = "deep"\n',
            r"retrieval\.pipelines\.depth-pipe\.depth: expected int, got 'deep'",
        ),
        (
            "[retrieval.pipelines.depth-pipe]\ndepth = 0\n",
            r"retrieval\.pipelines\.depth-pipe\.depth: Input should be greater than or equal to 1",
        ),
        (
            "[retrieval.pipelines.depth-pipe]\ndeep = 3\n",
            r"retrieval\.pipelines\.depth-pipe\.deep: unknown setting \(settings: pool, .*depth\)",
        ),
        ("[rerank.tail-first]\nkeep = 1.5\n", r"rerank\.tail-first\.keep: expected int, got 1\.5"),
        (
            "[rerank.tail-first]\nkeep = true\nmore = 1\n",
            r"rerank\.tail-first\.more: unknown setting \(settings: keep\)",
        ),
    ],
)
def test_a_wrong_value_names_the_entry_and_the_key(installed: None, tmp_path: Path, table: str, expected: str) -> None:
    _write(tmp_path, table)
    with pytest.raises(ConfigError, match=expected):
        load_config(tmp_path)


def test_the_docs_generator_documents_their_settings(installed: None) -> None:
    doc = configuration_markdown()
    assert "### `[retrieval.pipelines.depth-pipe]` (plugin:toy-settings-plugin)" in doc
    assert "| `depth` | `2` | Passages the toy pipeline keeps. |" in doc
    assert "### `[rerank.tail-first]` (plugin:toy-settings-plugin)" in doc
    assert "| `keep` | `3` | Passages the reranker returns at most. |" in doc


def test_without_the_plugin_the_tables_are_config_errors(tmp_path: Path) -> None:
    _write(tmp_path, "[retrieval.pipelines.depth-pipe]\ndepth = 1\n")
    with pytest.raises(ConfigError, match=r"retrieval\.pipelines\.depth-pipe: unknown retrieval pipeline"):
        load_config(tmp_path)


def test_registered_in_code_before_opening_one_workspace(indexed: Path) -> None:
    """The public API: entries registered on a ``Registries`` the workspace opens with are configured
    from its kgrag.toml like installed plug-ins; another workspace does not know them."""
    registries = Registries()
    kinds.pipelines(registries).register("depth-code", depth_pipeline, settings=DepthSettings)
    kinds.rerankers(registries).register("tail-code", tail_first)  # the model comes from `settings_model`
    _write(
        indexed,
        '[retrieval.pipelines.depth-code]\ndepth = 3\n\n[rerank]\nprovider = "tail-code"\n\n'
        "[rerank.tail-code]\nkeep = 1\n",
    )
    with Workspace.open(indexed, registries=registries) as ws:
        assert _step(ws.retrieve(QUESTION, "depth-code", 5), "keep_depth").params == {"depth": 3}
        assert len([i for i in ws.retrieve(QUESTION, "rerank", 5).items if i.kind == "chunk"]) == 1
        assert kinds.pipelines(ws) is ws.pipelines
    with pytest.raises(ConfigError, match=r"retrieval\.pipelines\.depth-code: unknown retrieval pipeline"):
        Workspace.open(indexed)
    _write(indexed, "")
