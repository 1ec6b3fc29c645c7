"""Indexing engines without starting Ray: the registry, config and CLI validation, the missing-Ray error,
and the pure parts of the Ray engine (how extraction input is split)."""

from __future__ import annotations

import shutil
import sys
import types
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


class _StandInRay(types.ModuleType):
    """Stands in for the ``ray`` module: ``init`` writes a log into the temporary directory it is given, as
    Ray does, or fails the way Ray fails when it cannot start."""

    def __init__(self, fail_init: bool = False) -> None:
        super().__init__("ray")
        self.data = types.ModuleType("ray.data")
        self.fail_init = fail_init
        self.temp_dir: Path | None = None
        self.running = False

    def is_initialized(self) -> bool:
        return self.running

    def init(self, **args: object) -> None:
        self.temp_dir = Path(str(args["_temp_dir"]))
        (self.temp_dir / "session_latest").mkdir()
        (self.temp_dir / "session_latest" / "raylet.out").write_text("raylet started\n")
        if self.fail_init:
            raise RuntimeError("raylet exited")
        self.running = True

    def shutdown(self) -> None:
        self.running = False


def _stand_in(monkeypatch: pytest.MonkeyPatch, fail_init: bool = False) -> _StandInRay:
    ray = _StandInRay(fail_init)
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.setitem(sys.modules, "ray.data", ray.data)
    return ray


def test_a_local_ray_leaves_no_temporary_directory_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = _stand_in(monkeypatch)
    with ray_session(RayEngineSettings(num_cpus=1), SilentProgress()):
        assert ray.running and ray.temp_dir is not None and ray.temp_dir.is_dir()
    assert not ray.running
    assert not ray.temp_dir.exists()


def test_a_failed_ray_run_keeps_its_logs_and_says_where(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = _stand_in(monkeypatch)
    progress = SilentProgress()
    with pytest.raises(KgragError, match="worker lost"), ray_session(RayEngineSettings(num_cpus=1), progress):
        raise KgragError("worker lost")
    assert not ray.running and ray.temp_dir is not None
    assert (ray.temp_dir / "session_latest" / "raylet.out").is_file()
    assert f"the local Ray's logs are kept in {ray.temp_dir}" in progress.notes[-1]
    shutil.rmtree(ray.temp_dir)


def test_a_ray_that_cannot_start_keeps_its_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = _stand_in(monkeypatch, fail_init=True)
    progress = SilentProgress()
    failure = pytest.raises(ConfigError, match=r"indexing\.engines\.ray\.num_cpus: could not start")
    with failure, ray_session(RayEngineSettings(num_cpus=1), progress):
        pass
    assert ray.temp_dir is not None and (ray.temp_dir / "session_latest" / "raylet.out").is_file()
    assert str(ray.temp_dir) in progress.notes[-1]
    shutil.rmtree(ray.temp_dir)


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
