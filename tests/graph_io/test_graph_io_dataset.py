"""The shared GraphRAG-Bench Medical LightRAG graph: imported faithfully, stats equal igraph's reading."""

from __future__ import annotations

import shutil
from pathlib import Path

import igraph as ig
import pytest
from tests.store.backends import StoreMaker

from kgrag.config import StoreConfig
from kgrag.graph.analysis.stats import graph_stats
from kgrag.graph.io.graphml import export_graphml, import_graphml
from kgrag.graph.io.lightrag.importer import import_lightrag
from kgrag.store import Store, open_store

MEDICAL = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "graphrag-bench-medical"
GRAPHML = MEDICAL / "lightrag-noisy-kg.graphml"
CHUNKS = MEDICAL / "lightrag-text-chunks.json"

pytestmark = pytest.mark.dataset


@pytest.fixture(scope="module")
def medical_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    if not GRAPHML.exists() or not CHUNKS.exists():
        pytest.skip("../shared/datasets/graphrag-bench-medical is not present")
    directory = tmp_path_factory.mktemp("lightrag")
    shutil.copy(GRAPHML, directory / GRAPHML.name)  # the shared names, found without --graphml/--chunks
    shutil.copy(CHUNKS, directory / CHUNKS.name)
    store = open_store(StoreConfig(), tmp_path_factory.mktemp("ws"))  # the default backend, as a workspace has
    report = import_lightrag(store, directory)
    assert (report.nodes, report.edges, report.documents, report.chunks) == (1131, 632, 1, 199)
    assert report.dangling_source_ids == 0 and report.placeholder_entities == 0
    return store


def test_medical_graph_size_equals_lightrag(medical_store: Store) -> None:
    stats = graph_stats(medical_store)
    assert (stats.nodes, stats.edges) == (1131, 632)
    counts = medical_store.graph.counts()
    assert (counts["entities"], counts["relations"], counts["chunks_extracted"]) == (1131, 632, 199)


def test_medical_stats_equal_igraph_on_the_original_file(medical_store: Store) -> None:
    original = ig.Graph.Read_GraphML(str(GRAPHML))
    stats = graph_stats(medical_store)
    assert stats.average_clustering == pytest.approx(original.transitivity_avglocal_undirected(mode="zero"))
    assert stats.components == len(original.connected_components())
    assert stats.largest_component == max(original.connected_components().sizes())
    assert sorted(original.degree()) == sorted(d for d, n in stats.degree_histogram for _ in range(n))


def test_medical_graphml_round_trip_is_exact(medical_store: Store, tmp_path: Path, make_store: StoreMaker) -> None:
    before = (medical_store.graph.entities(), medical_store.graph.relations())
    path = tmp_path / "medical.graphml"
    export_graphml(medical_store, path)
    fresh = make_store("s1")
    import_graphml(fresh, path)
    assert (fresh.graph.entities(), fresh.graph.relations()) == before
