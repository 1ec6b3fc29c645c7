"""Every registry kind is typed, reached through one accessor, registrable on one workspace, and no code
below the config makes a registry from a kind's name; a stage with counters of its own reports them in
its own typed report and reads its own ``[indexing.stages.<name>]`` table; the summariser and the default
metrics come from the config and the registry."""

from __future__ import annotations

import ast
import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.core.builtins import KINDS
from kgrag.core.errors import ConfigError
from kgrag.core.registries import Registries
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.indexing.context import IndexContext
from kgrag.workspace import kinds

SRC = Path(__file__).resolve().parents[2] / "src" / "kgrag"
BASE_TOML = '[embedding]\nprovider = "fake"\n\n[graph]\nextractor = "none"\n'
ACCESSORS = {
    "store": kinds.stores,
    "vector_index": kinds.vector_indexes,
    "embedder": kinds.embedders,
    "llm_provider": kinds.llm_providers,
    "extractor": kinds.extractors,
    "summarizer": kinds.summarizers,
    "prompt_schema": kinds.prompt_schemas,
    "resolution_blocker": kinds.resolution_blockers,
    "resolution_matcher": kinds.resolution_matchers,
    "resolution_grouper": kinds.resolution_groupers,
    "resolution_merger": kinds.resolution_mergers,
    "triple_reflector": kinds.triple_reflectors,
    "loader": kinds.loaders,
    "pipeline": kinds.pipelines,
    "reranker": kinds.rerankers,
    "query_resource": kinds.query_resources,
    "answer_strategy": kinds.answer_strategies,
    "stage": kinds.stages,
    "index_pipeline": kinds.index_pipelines,
    "index_engine": kinds.index_engines,
    "community_builder": kinds.community_builders,
    "metric": kinds.metrics,
    "judge": kinds.judges,
}


def test_every_kind_has_one_typed_accessor_holding_its_builtins() -> None:
    assert set(ACCESSORS) == set(KINDS)
    registries = Registries()
    for key, accessor in ACCESSORS.items():
        registry = accessor(registries)
        assert (
            registry.kind == KINDS[key].noun
            and list(KINDS[key].builtins) == registry.names()[: len(KINDS[key].builtins)]
        )
        assert accessor(registries) is registry  # one per owner, kept


def test_no_registry_is_made_from_a_kind_name_below_the_config() -> None:
    """Code that creates entries goes through a typed ``RegistryKind``; only the config (name checks, docs)
    and the core itself call ``new_registry`` with a string."""
    offenders = []
    for path in SRC.rglob("*.py"):
        relative = path.relative_to(SRC).as_posix()
        if relative.startswith(("core/", "config/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", "")) == "new_registry"
            ):
                offenders.append(f"{relative}:{node.lineno}")
    assert not offenders


# -- a stage with its own counters and settings, registered on one workspace ------------------------
class CountSettings(BaseModel):
    """`count-docs`: counts what discovery found."""

    model_config = ConfigDict(extra="forbid")
    suffix: str = Field(".md", description="Only files with this suffix count.")


@dataclass
class CountReport:
    files: int = 0
    suffix: str = ""


class CountStage:
    name = "count-docs"
    settings_model = CountSettings

    def run(self, ctx: IndexContext) -> None:
        settings = ctx.config.indexing.stage_settings(self.name, CountSettings)
        own = ctx.report.stage(self.name, CountReport)
        own.suffix = settings.suffix
        own.files += sum(1 for path in ctx.files if path.suffix == settings.suffix)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("team-platform.md", "product-kestrel.md"):
        shutil.copy(SAMPLE_DOCS / name, folder / name)
    (folder / "notes.txt").write_text("Kestrel notes in plain text.\n", encoding="utf-8")
    return folder


def test_a_stage_reports_its_own_counters_and_reads_its_own_table(tmp_path: Path, docs: Path) -> None:
    registries = Registries()
    kinds.stages(registries).register("count-docs", CountStage)
    kinds.index_pipelines(registries).register("counted", ("discover", "count-docs", "ingest", "finalize"))
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    (ws_dir / "kgrag.toml").write_text(
        BASE_TOML + '\n[indexing.stages.count-docs]\nsuffix = ".txt"\n', encoding="utf-8"
    )
    with Workspace.open(ws_dir, registries=registries) as ws:
        report = ws.index([docs], pipeline="counted")
    assert report.stages["count-docs"] == CountReport(files=1, suffix=".txt")
    assert json.loads(json.dumps(asdict(report)))["stages"]["count-docs"] == {"files": 1, "suffix": ".txt"}
    with pytest.raises(ConfigError, match=r"indexing\.stages\.count-docs: unknown indexing stage"):
        Workspace.open(ws_dir)  # another workspace knows neither the stage nor its table
    assert "count-docs" not in kinds.stages(Registries())


def test_community_stage_reports_are_typed(tmp_path: Path, docs: Path) -> None:
    from kgrag.indexing.stages.communities import CommunitiesReport

    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    (ws_dir / "kgrag.toml").write_text('[embedding]\nprovider = "fake"\n', encoding="utf-8")
    with Workspace.open(ws_dir) as ws:
        built = ws.communities.build()
    own = built.report.stages["communities"]
    assert isinstance(own, CommunitiesReport) and own.communities == built.report.communities["communities"]


# -- summariser from the config, default metrics from the registry ---------------------------------
class Shouting(ExtractiveSummarizer):
    pass


def test_the_summarizer_is_chosen_by_the_config(tmp_path: Path) -> None:
    registries = Registries()
    kinds.summarizers(registries).register("shouting", lambda config, client: Shouting(100))
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    (ws_dir / "kgrag.toml").write_text(BASE_TOML + 'summarizer = "shouting"\n', encoding="utf-8")
    with Workspace.open(ws_dir, registries=registries) as ws:
        assert isinstance(ws.components.summarizer(), Shouting)
    with Workspace.open(ws_dir, registries=registries, graph={"summarizer": "extractive"}) as ws:
        assert type(ws.components.summarizer()) is ExtractiveSummarizer


class Always:
    name = "always"
    paper = "none"

    def llm_free(self, sample: Any, tools: Any) -> Any:
        from kgrag.evaluation.metrics import Measured

        return Measured(1.0)

    judged = llm_free


def test_the_default_metrics_come_from_the_registry_and_the_config(tmp_path: Path) -> None:
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    (ws_dir / "kgrag.toml").write_text(BASE_TOML, encoding="utf-8")
    with Workspace.open(ws_dir) as ws, Workspace.open(ws_dir) as other:
        builtin = ws.eval.default_metrics()
        assert builtin == [
            "evidence-recall",
            "context-relevance",
            "rouge-l",
            "answer-accuracy",
            "coverage",
            "faithfulness",
        ]
        kinds.metrics(ws).register("always", Always, default_set=True)
        kinds.metrics(ws).register("sometimes", Always)
        assert ws.eval.default_metrics() == [*builtin, "always"] and other.eval.default_metrics() == builtin
    with Workspace.open(ws_dir, evaluation={"default_metrics": ["rouge-l"]}) as ws:
        assert ws.eval.default_metrics() == ["rouge-l"]


def _load_adoc(path: Path, data: bytes, cfg: Any) -> list[Any]:
    from kgrag.documents.records import LoadedDocument

    text = data.decode("utf-8").replace("=====\n", "")
    return [LoadedDocument.from_text(str(path.resolve()), "reST", text, {"format": "adoc"})]


def test_a_loader_registered_on_one_workspace_reads_its_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.adoc").write_text("Guide\n=====\nKestrel stores telemetry in Shale.\n", encoding="utf-8")
    registries = Registries()
    kinds.loaders(registries).register(".adoc", _load_adoc)
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    (ws_dir / "kgrag.toml").write_text(BASE_TOML + '\n[documents]\ninclude = ["*.adoc"]\n', encoding="utf-8")
    with Workspace.open(ws_dir, registries=registries) as ws:
        report = ws.index([docs], pipeline="fast")
        assert report.documents_new == 1 and not report.problems
        assert [d.title for d in ws.store.documents.list()] == ["reST"]
    with Workspace.open(ws_dir) as other:  # without the loader the same file is a reported problem
        (docs / "guide.adoc").write_text("Guide\n=====\nChanged.\n", encoding="utf-8")
        assert "unsupported file type '.adoc'" in other.index([docs], pipeline="fast").problems[0].reason


def test_the_eval_run_help_lists_the_default_metrics_from_the_registry() -> None:
    from typer.testing import CliRunner

    from kgrag.cli.app import app
    from kgrag.core.registries import builtin_defaults

    shown = " ".join(CliRunner().invoke(app, ["eval", "run", "--help"], env={"COLUMNS": "400"}).output.split())
    assert "default: " + ", ".join(builtin_defaults("metric")) + ", plus installed plug-ins" in shown
    assert "all six" not in shown and len(builtin_defaults("metric")) == 6
