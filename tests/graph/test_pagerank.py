"""Personalized PageRank runs igraph's PRPACK on one OpenMP thread: the same values as igraph's default
call, the same result on every call, and the caller's OpenMP setting restored afterwards; the sparse solve
gives igraph's values too; the partial sort orders as a full stable sort; PageRank scored back to passages
equals a plain loop."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import igraph as ig
import numpy as np
import pytest
from threadpoolctl import ThreadpoolController

from kgrag.graph.pagerank import OneThreadPageRank, SparsePageRank, VertexPassages, top_order


def _igraph(graph: ig.Graph, reset: np.ndarray, damping: float) -> np.ndarray:
    weights = "weight" if graph.ecount() else None
    return np.array(graph.personalized_pagerank(damping=damping, reset=list(reset), weights=weights))


def _random_graph(rng: np.random.Generator, n: int, m: int) -> ig.Graph:
    graph = ig.Graph(n=n, edges=[tuple(e) for e in rng.integers(0, n, size=(m, 2))])
    graph.es["weight"] = rng.uniform(0.1, 3.0, m).tolist()
    return graph


@pytest.mark.parametrize("damping", [0.5, 0.85])
def test_values_are_igraphs_and_repeat_exactly(damping: float) -> None:
    rng = np.random.default_rng(11)
    graph = _random_graph(rng, 2000, 2600)  # sparse, with isolated vertices, like an extracted graph
    walk = OneThreadPageRank(graph)
    for _ in range(3):
        reset = np.zeros(2000)
        reset[rng.choice(2000, 10, replace=False)] = rng.uniform(0.1, 1.0, 10)
        mine = walk.personalized(reset, damping)
        assert mine.sum() == pytest.approx(1.0, abs=1e-9)
        assert mine == pytest.approx(_igraph(graph, reset, damping), abs=1e-12)
        assert np.array_equal(mine, walk.personalized(reset, damping))  # one thread: no reordered sums


def test_an_edgeless_graph_and_the_openmp_setting_restored() -> None:
    openmp = ThreadpoolController().select(user_api="openmp")
    before = [lib["num_threads"] for lib in openmp.info()]
    walk = OneThreadPageRank(ig.Graph(n=3))
    ranks = walk.personalized([0.0, 1.0, 0.0], 0.5)
    assert ranks.tolist() == pytest.approx([0.0, 1.0, 0.0])
    assert [lib["num_threads"] for lib in openmp.info()] == before


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


@pytest.mark.parametrize("damping", [0.5, 0.85])
def test_the_sparse_solve_gives_igraphs_values(damping: float) -> None:
    """Isolated vertices (one of them seeded), parallel edges and self-loops (counted twice, as igraph
    does); components no seed reaches stay exactly 0; the factorisation is made once per damping."""
    rng = np.random.default_rng(7)
    graph = _random_graph(rng, 2000, 2600)
    graph.add_edges([(3, 3), (5, 5), (1, 2), (1, 2)], attributes={"weight": [2.0, 1.0, 0.5, 1.5]})
    walk = SparsePageRank(graph)
    isolated = [v for v in range(2000) if graph.degree(v) == 0]
    for _ in range(3):
        reset = np.zeros(2000)
        reset[[*rng.choice(2000, 10, replace=False), 1, 3, 5, isolated[0]]] = rng.uniform(0.1, 1.0, 14)
        mine = walk.personalized(reset, damping)
        reference = _igraph(graph, reset, damping)
        assert mine.sum() == pytest.approx(1.0, abs=1e-12)
        assert mine == pytest.approx(reference, abs=1e-10)
        assert np.array_equal(mine == 0, reference == 0)
    assert list(walk._factors) == [damping]


def test_the_sparse_solve_of_an_edgeless_graph_keeps_the_reset() -> None:
    assert SparsePageRank(ig.Graph(n=3)).personalized([0.0, 2.0, 2.0], 0.5).tolist() == [0.0, 0.5, 0.5]


def test_the_partial_sort_orders_as_a_stable_full_sort() -> None:
    rng = np.random.default_rng(3)
    for values in (np.round(rng.random(5000), 2), np.zeros(300), rng.random(150), np.r_[rng.random(50), np.zeros(900)]):
        for limit in (1, 7, 200):
            assert np.array_equal(top_order(values, limit), np.argsort(-values, kind="stable")[:limit])


def test_the_sparse_solve_from_many_threads_at_once() -> None:
    """A server's queries share one walk: the factorisation is made once and concurrent solves agree."""
    rng = np.random.default_rng(9)
    walk = SparsePageRank(_random_graph(rng, 3000, 4000))
    resets = [rng.random(3000) * (rng.random(3000) < 0.01) for _ in range(16)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(lambda reset: walk.personalized(reset, 0.5), resets))
    assert all(np.array_equal(a, walk.personalized(r, 0.5)) for a, r in zip(together, resets, strict=True))
    assert len(walk._factors) == 1


def test_large_graphs_are_walked_by_igraph_not_factorised(monkeypatch: pytest.MonkeyPatch) -> None:
    """A factorisation's fill can outgrow the graph by orders of magnitude on hub-heavy graphs; above
    the size limit the walk is igraph's, with the same distribution."""
    from kgrag.graph import pagerank

    graph = ig.Graph.Barabasi(300, 3)
    graph.es["weight"] = [1.0] * graph.ecount()
    assert isinstance(pagerank.personalized_walk(graph), SparsePageRank)
    monkeypatch.setattr(pagerank, "SPARSE_SOLVE_MAX_EDGES", graph.ecount() - 1)
    walk = pagerank.personalized_walk(graph)
    assert isinstance(walk, OneThreadPageRank)
    reset = [1.0 if v % 50 == 0 else 0.0 for v in range(graph.vcount())]
    expected = SparsePageRank(graph).personalized(reset, 0.5)
    assert np.allclose(walk.personalized(reset, 0.5), expected, atol=1e-9)
