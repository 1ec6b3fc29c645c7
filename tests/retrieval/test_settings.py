"""`[retrieval.pipelines.<name>]` tables: a recipe reads its own table, falling back to `[retrieval]`."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrag import Workspace
from kgrag.config import KgragConfig, load_config
from kgrag.core.builtins import new_registry
from kgrag.core.errors import ConfigError
from kgrag.retrieval import build_pipeline
from kgrag.retrieval.steps import BM25Search, DenseSearch, FuseRRF
from kgrag.retrieval.steps.graph import GraphLocalSearch
from kgrag.retrieval.steps.graph_local import LocalSearchParams


def _build(config: KgragConfig, name: str):  # type: ignore[no-untyped-def]
    return build_pipeline(new_registry("pipeline"), name, config)


def test_a_table_overrides_only_its_pipeline() -> None:
    config = load_config(None, retrieval={"candidate_pool": 40, "pipelines": {"hybrid": {"pool": 11, "rrf_k": 7}}})
    hybrid = _build(config, "hybrid")
    assert [s.pool for s in hybrid.steps if isinstance(s, DenseSearch | BM25Search)] == [11, 11]
    assert next(s for s in hybrid.steps if isinstance(s, FuseRRF)).k == 7
    assert "k=7" in hybrid.description
    dense = _build(config, "dense")
    assert next(s for s in dense.steps if isinstance(s, DenseSearch)).pool == 40  # falls back to [retrieval]


def test_without_tables_the_global_knobs_apply() -> None:
    config = load_config(None, retrieval={"candidate_pool": 33, "rrf_k": 21})
    hybrid = _build(config, "hybrid")
    assert next(s for s in hybrid.steps if isinstance(s, FuseRRF)).k == 21
    assert all(s.pool == 33 for s in hybrid.steps if isinstance(s, DenseSearch | BM25Search))


def test_graph_local_search_parameters() -> None:
    config = load_config(None, retrieval={"pipelines": {"graph-local": {"top_entities": 3, "entity_pool": 9}}})
    search = next(s for s in _build(config, "graph-local").steps if isinstance(s, GraphLocalSearch))
    assert search.params == LocalSearchParams(top_entities=3, candidate_pool=9)
    default = next(s for s in _build(load_config(None), "graph-local").steps if isinstance(s, GraphLocalSearch))
    assert default.params == LocalSearchParams()


def test_a_table_in_kgrag_toml_changes_what_runs(graph_ws: Workspace, tmp_path: Path) -> None:
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    (ws_dir / "kgrag.toml").write_text(
        '[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n'
        "[retrieval.pipelines.graph-local]\ntop_entities = 2\n[retrieval.pipelines.hybrid]\nrrf_k = 7\n"
    )
    for part in graph_ws.path.glob("kgrag.sqlite3*"):  # the database and its write-ahead log
        (ws_dir / part.name).write_bytes(part.read_bytes())
    with Workspace.open(ws_dir) as ws:
        hybrid = ws.retrieve("Kestrel storage", "hybrid", 3)
        graph = ws.retrieve("Who leads the Platform team?", "graph-local", 3)
    assert next(s for s in hybrid.trace if s.step == "rrf_fuse").params["k"] == 7
    assert next(s for s in graph.trace if s.step == "graph_local").params["top_entities"] == 2
    assert sum(item.kind == "entity" and item.metadata["hop"] == 0 for item in graph.items) <= 2


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ({"nope": {"pool": 3}}, r"retrieval\.pipelines\.nope: unknown retrieval pipeline 'nope'; available: dense"),
        ({"hybrid": {"rrf_kk": 3}}, r"retrieval\.pipelines\.hybrid\.rrf_kk: unknown setting \(settings: pool, rrf_k"),
        ({"hybrid": {"pool": 0}}, r"retrieval\.pipelines\.hybrid\.pool"),
    ],
)
def test_bad_tables_fail_at_load_time(table: dict[str, dict[str, int]], expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        load_config(None, retrieval={"pipelines": table})
