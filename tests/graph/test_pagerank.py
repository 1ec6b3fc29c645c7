"""Personalized PageRank by power iteration gives igraph's values (PRPACK) within 1e-12, with igraph's
rules for sinks, self-loops and parallel edges; the ``ppr`` ranking is the same, ties aside."""

from __future__ import annotations

import igraph as ig
import numpy as np
import pytest

from kgrag.graph.analysis.pagerank import PageRankWalk, VertexPassages, steps


def _igraph(graph: ig.Graph, reset: np.ndarray, damping: float) -> np.ndarray:
    weights = "weight" if "weight" in graph.es.attributes() else None
    return np.array(graph.personalized_pagerank(damping=damping, reset=list(reset), weights=weights))


def _walk(graph: ig.Graph) -> PageRankWalk:
    return PageRankWalk(graph.vcount(), graph.get_edgelist(), graph.es["weight"] if graph.ecount() else None)


def test_sinks_self_loops_and_parallel_edges_as_in_igraph() -> None:
    graph = ig.Graph(n=6, edges=[(0, 1), (1, 1), (1, 2), (1, 2), (3, 3), (4, 2)])
    graph.es["weight"] = [1.0, 2.0, 0.5, 1.5, 1.0, 0.0]
    walk = _walk(graph)
    for reset in ([1, 0, 0, 0, 0, 0], [0, 0.2, 0, 0.8, 0.3, 0], [0, 0, 0, 0, 0, 1], [1, 1, 1, 1, 1, 1]):
        vector = np.array(reset, dtype=float)
        assert walk.personalized(vector, 0.5) == pytest.approx(_igraph(graph, vector, 0.5), abs=1e-13)
    alone = walk.personalized(np.array([0, 0, 0, 0, 0, 1.0]), 0.5)  # vertex 5 has no edge: all mass stays
    assert alone[5] == 1.0 and not alone[:5].any()


@pytest.mark.parametrize("damping", [0.5, 0.85, 0.15])
def test_random_weighted_graphs_match_igraph(damping: float) -> None:
    rng = np.random.default_rng(11)
    for n, m in ((50, 80), (2000, 2600)):  # sparse, with isolated vertices, like an extracted graph
        graph = ig.Graph(n=n, edges=[tuple(e) for e in rng.integers(0, n, size=(m, 2))])
        graph.es["weight"] = rng.uniform(0.1, 3.0, m).tolist()
        walk = _walk(graph)
        for _ in range(5):
            reset = np.zeros(n)
            reset[rng.choice(n, 10, replace=False)] = rng.uniform(0.1, 1.0, 10)
            mine, theirs = walk.personalized(reset, damping), _igraph(graph, reset, damping)
            assert mine.sum() == pytest.approx(1.0, abs=1e-12)
            assert mine == pytest.approx(theirs, abs=1e-12)
            assert ((mine == 0) == (theirs == 0)).all()  # unreachable vertices score exactly 0 in both
            distinct = np.argsort(-theirs, kind="stable")[:200]
            gaps = np.abs(np.diff(theirs[distinct])) > 1e-11  # where igraph's own order is not a near-tie
            assert (np.argsort(-mine, kind="stable")[:200] == distinct)[1:][gaps].all()


def test_unweighted_graph_and_bounds() -> None:
    graph = ig.Graph.Ring(8)
    walk = PageRankWalk(8, graph.get_edgelist())
    reset = np.eye(8)[0]
    assert walk.personalized(reset, 0.5) == pytest.approx(_igraph(graph, reset, 0.5), abs=1e-13)
    assert steps(0.5) == 45 and steps(0.0) == 1
    with pytest.raises(ValueError, match="damping"):
        walk.personalized(reset, 1.0)


def test_passage_scores_equal_a_loop_over_the_vertices() -> None:
    """Same sums (added in the same order), same order, ties by first citation; vertices citing nothing
    are skipped."""
    rng = np.random.default_rng(5)
    chunks = [f"c{i}" for i in range(40)]
    per_vertex = [list(rng.choice(chunks, rng.integers(0, 6))) for _ in range(300)]
    passages = VertexPassages.build(per_vertex)
    ranks = np.round(rng.random(300), 2)  # coarse values: many exact ties
    top = np.argsort(-ranks, kind="stable")[:200]
    expected: dict[str, float] = {}
    for v in top.tolist():
        for chunk_id in per_vertex[v]:
            expected[chunk_id] = expected.get(chunk_id, 0.0) + float(ranks[v]) / len(per_vertex[v])
    loop = sorted(expected.items(), key=lambda kv: -kv[1])[:25]
    assert passages.scores(top, ranks[top], 25) == loop
    assert passages.scores(np.array([v for v, c in enumerate(per_vertex) if not c][:3]), np.ones(3), 5) == []
