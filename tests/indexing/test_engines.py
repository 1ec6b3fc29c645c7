"""Indexing engines without starting Ray: the registry, config and CLI validation, the missing-Ray error,
and the pure parts of the Ray engine (how extraction input is split)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.graph.graph_fakes import WordExtractor
from tests.helpers import add_document
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.config import IndexingConfig, load_config
from kgrag.core.builtins import new_registry
from kgrag.core.errors import ConfigError, KgragError
from kgrag.core.progress import SilentProgress
from kgrag.indexing import IndexRegistries
from kgrag.indexing.compute import LocalCompute
from kgrag.indexing.engines.local import LocalEngine
from kgrag.indexing.engines.ray_compute import independent_groups
from kgrag.indexing.engines.ray_session import ray_session
from kgrag.indexing.engines.ray_settings import RayEngineSettings
from kgrag.indexing.runner import resolve_engine
from kgrag.models.embeddings import FakeEmbedder


def test_engines_are_registered_by_name() -> None:
    engines = new_registry("index_engine")
    assert {"local", "ray"} <= set(engines.names())
    assert isinstance(resolve_engine("local", IndexRegistries.builtin()), LocalEngine)
    with pytest.raises(ConfigError, match=r"indexing\.engine: unknown indexing engine 'spark'"):
        resolve_engine("spark", IndexRegistries.builtin())


def test_config_names_the_engine_field(tmp_path: Path) -> None:
    assert IndexingConfig().engine == "local"
    with pytest.raises(ConfigError, match=r"indexing\.engine.*unknown indexing engine 'sparky'"):
        load_config(tmp_path, indexing={"engine": "sparky"})
    with pytest.raises(ConfigError, match=r"indexing\.engines\.ray\.embed_concurrency"):
        load_config(tmp_path, indexing={"engines": {"ray": {"embed_concurrency": 0}}})


def test_cli_rejects_an_unknown_engine_as_a_user_error(tmp_path: Path) -> None:
    Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}).close()
    result = CliRunner().invoke(app, ["index", str(tmp_path), "--engine", "sparky", "-w", str(tmp_path / "ws")])
    assert result.exit_code == 1
    assert "indexing.engine" in result.output and "Traceback" not in result.output


def test_missing_ray_tells_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # an import of ray now fails as if it were not installed
    session = ray_session(RayEngineSettings(), SilentProgress())
    with pytest.raises(KgragError, match=r"pip install 'kgrag\[ray\]'"), session:
        pass


def test_local_compute_embeds_in_model_batches() -> None:
    embedder = FakeEmbedder(8)
    blocks = list(LocalCompute().embed(embedder, [f"text {i}" for i in range(5)], 2))
    assert [len(b) for b in blocks] == [2, 2, 1]


def test_extraction_is_split_only_where_the_extractor_allows(fake_ws: Workspace) -> None:
    add_document(fake_ws.store, "a", ["Alpha one.", "Alpha two.", "Alpha three."])
    add_document(fake_ws.store, "b", ["Beta one."])
    chunks = fake_ws.store.chunks.get_many(["a-c0", "b-c0", "a-c1", "a-c2"])

    class WholeDocuments:
        name = "units"

    chunkwise = independent_groups(WordExtractor(), chunks, 3)
    assert [[c.id for c in group] for group in chunkwise] == [["a-c0", "b-c0", "a-c1"], ["a-c2"]]
    by_document = independent_groups(WholeDocuments(), chunks, 3)  # type: ignore[arg-type]
    assert [[c.id for c in group] for group in by_document] == [["a-c0", "a-c1", "a-c2"], ["b-c0"]]
