"""Graph statistics on a hand-built graph, checked against hand computation and igraph."""

from __future__ import annotations

from pathlib import Path

import igraph as ig
import pytest
from tests.store.backends import StoreMaker

from kgrag.core.graph_ids import entity_id_for_key
from kgrag.graph.analysis.igraph_view import to_igraph
from kgrag.graph.analysis.plots import write_stats_plots
from kgrag.graph.analysis.render import comparison_markdown, stats_markdown, stats_tables
from kgrag.graph.analysis.stats import Hub, graph_stats, stats_of_igraph
from kgrag.store import Store


def test_stats_match_hand_computation(small_store: Store) -> None:
    stats = graph_stats(small_store)
    assert (stats.nodes, stats.edges) == (7, 5)
    assert stats.average_degree == pytest.approx(10 / 7)
    # local clustering: a=1, b=1, c=1/3 (neighbours a, b, d; only a-b linked), the rest 0 → mean over all 7
    assert stats.average_clustering == pytest.approx((1 + 1 + 1 / 3) / 7)
    assert (stats.components, stats.largest_component, stats.median_component_size) == (3, 4, 2.0)
    assert stats.isolated_nodes == 1
    assert stats.max_degree == 3
    assert stats.degree_histogram == [(0, 1), (1, 3), (2, 2), (3, 1)]
    assert stats.component_size_histogram == [(1, 1), (2, 1), (4, 1)]
    assert stats.top_hubs[:3] == [Hub("C", 3, "person"), Hub("A", 2, "person"), Hub("B", 2, "person")]
    assert all(hub.degree > 0 for hub in stats.top_hubs)
    assert stats.type_histogram == [("person", 3), ("concept", 2), ("organization", 2)]


def test_stats_agree_with_igraph_directly(small_store: Store) -> None:
    graph, ids = to_igraph(small_store)
    assert ids == [e.id for e in small_store.graph.entities()]
    assert graph.vs.find(name=entity_id_for_key("c")).degree() == 3
    stats = stats_of_igraph(graph)
    assert stats.average_clustering == pytest.approx(graph.transitivity_avglocal_undirected(mode="zero"))
    assert stats.components == len(graph.connected_components())
    assert sorted(graph.es["weight"]) == [1.0, 1.0, 1.0, 2.5, 3.0]


def test_clustering_ignores_parallel_edges_and_loops() -> None:
    graph = ig.Graph(n=3, edges=[(0, 1), (0, 1), (1, 2), (2, 0), (2, 2)])
    stats = stats_of_igraph(graph)
    assert stats.average_clustering == pytest.approx(1.0)
    assert stats.edges == 5


def test_empty_graph_gives_zeros(make_store: StoreMaker) -> None:
    store = make_store("s1")
    stats = graph_stats(store)
    assert (stats.nodes, stats.edges, stats.components, stats.average_clustering) == (0, 0, 0, 0.0)
    assert stats.top_hubs == [] and stats.type_histogram == []
    assert "| nodes | 0 |" in stats_markdown(stats)


def test_to_dict_is_json_ready(small_store: Store) -> None:
    import json

    data = json.loads(json.dumps(graph_stats(small_store).to_dict()))
    assert data["degree_histogram"][0] == [0, 1]
    assert data["top_hubs"][0] == {"name": "C", "degree": 3, "type": "person"}
    assert "degree<2 counted as 0" in data["clustering_convention"]


def test_markdown_and_rich_renderings(small_store: Store) -> None:
    from rich.console import Console

    stats = graph_stats(small_store)
    markdown = stats_markdown(stats)
    assert "| nodes | 7 |" in markdown and "| average clustering | 0.3333 |" in markdown
    assert "| C | person | 3 |" in markdown
    console = Console(record=True, width=100)
    console.print(stats_tables(stats))
    assert "Top hubs" in console.export_text()
    comparison = comparison_markdown(stats, stats)
    assert "| nodes | 7 | 7 | +0.0% |" in comparison


def test_plots_are_pngs(small_store: Store, tmp_path: Path) -> None:
    paths = write_stats_plots(graph_stats(small_store), tmp_path / "plots")
    assert [p.name for p in paths] == ["degree_distribution.png", "component_sizes.png", "entity_types.png"]
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
