"""``ppr-passages`` (hipporag2) on the sample corpus: the passage graph, the reset vector, and the
ranking at the two ends of ``passage_weight``."""

from __future__ import annotations

import pytest

from kgrag import Workspace
from kgrag.core.context import ContextItem
from kgrag.retrieval import build_pipeline
from kgrag.retrieval.pipeline_settings import PprPassagesSettings
from kgrag.retrieval.steps import DenseSearch, QueryState
from kgrag.retrieval.steps.ppr import PassagePageRank, mix_reset, passage_reset, seed_scores

QUESTION = "Which rule did the Osprey firmware incident at Águas do Tejo lead to?"


def _run(ws: Workspace, step: PassagePageRank) -> QueryState:
    ctx = ws.components.query_context
    state = QueryState(query=QUESTION, k=5, queries=[QUESTION])
    DenseSearch(pool=50).run(state, ctx)
    step.run(state, ctx)
    return state


def test_the_passage_graph_links_each_entity_to_its_passages(graph_ws: Workspace) -> None:
    ctx = graph_ws.components.query_context
    graph, view, index = ctx.graph_snapshot().passage_graph, ctx.graph_snapshot().igraph, ctx.graph_index()
    mentions = sum(len(e.chunk_ids) for e in index.entities.values())
    assert graph.n_entities == view.graph.vcount() == len(index.entities)
    assert graph.graph.vcount() == graph.n_entities + len(graph.passage_ids)
    assert graph.graph.ecount() == view.graph.ecount() + mentions
    entity = next(e for e in index.entities.values() if e.chunk_ids)
    v = graph.entity_vertex[entity.id]
    linked = {graph.passage_of(u) for u in graph.graph.neighbors(v)} - {None}
    assert linked == set(entity.chunk_ids)
    assert ctx.graph_snapshot().passage_graph is graph  # built once per graph version


def test_reset_mixes_entity_and_passage_shares(graph_ws: Workspace) -> None:
    graph = graph_ws.components.query_context.graph_snapshot().passage_graph
    chunk = graph.passage_ids[0]
    passages = passage_reset({chunk: 0.9, "not-in-graph": 0.5, graph.passage_ids[1]: 0.1})
    assert passages == pytest.approx({chunk: 1 / 1.5, "not-in-graph": 0.5 / 1.5})  # min-max: the weakest is 0
    reset, off_graph = mix_reset({0: 1.0}, passages, graph, 0.25)
    assert sum(reset) + sum(off_graph.values()) == pytest.approx(1.0)
    assert reset[0] == pytest.approx(0.75) and reset[graph.passage_vertex[chunk]] == pytest.approx(0.25 / 1.5)
    assert off_graph == pytest.approx({"not-in-graph": 0.25 * 0.5 / 1.5})
    only_passages, _ = mix_reset({}, passages, graph, 0.25)  # no entity seed: all mass on the passages
    assert only_passages[0] == 0 and sum(only_passages) == pytest.approx(1 / 1.5)


def test_several_seed_streams_are_fused_by_reciprocal_rank() -> None:
    state = QueryState(query=QUESTION, k=5, queries=[QUESTION])
    state.streams["dense"] = [ContextItem(kind="chunk", id=c, text="", score=s) for c, s in (("a", 0.9), ("b", 0.8))]
    state.streams["bm25"] = [ContextItem(kind="chunk", id="b", text="", score=7.0)]
    assert seed_scores(state, ("dense",)) == {"a": 0.9, "b": 0.8}  # one stream: its own scores
    fused = seed_scores(state, ("dense", "bm25"), rrf_k=60)
    assert fused == pytest.approx({"a": 1 / 61, "b": 1 / 62 + 1 / 61})


def test_entity_seeds_alone_rank_the_passages_that_mention_them(graph_ws: Workspace) -> None:
    state = _run(graph_ws, PassagePageRank(passage_weight=0.0))
    index = graph_ws.components.query_context.graph_index()
    step = state.trace[-1]
    assert step.step == "ppr_passages" and step.params["seeds"] and step.params["passage_weight"] == 0.0
    names = set(step.params["seeds"])
    seeded = {c for e in index.entities.values() if e.name in names for c in e.chunk_ids}
    top = state.streams["ppr_passages"][0]
    assert top.kind == "chunk" and top.id in seeded
    scores = [i.score for i in state.streams["ppr_passages"]]
    assert scores == sorted(scores, reverse=True)


def test_passage_seeds_alone_with_little_walking_follow_dense(graph_ws: Workspace) -> None:
    state = _run(graph_ws, PassagePageRank(passage_weight=1.0, damping=0.01))
    assert state.streams["ppr_passages"][0].id == state.streams["dense"][0].id


def test_pipeline_reads_its_settings_and_returns_passages(graph_ws: Workspace) -> None:
    config = graph_ws.config.model_copy(deep=True)
    config.retrieval.pipelines["ppr-passages"] = PprPassagesSettings(passage_weight=0.2, damping=0.6)
    pipeline = build_pipeline(graph_ws.components.pipelines, "ppr-passages", config)
    result = pipeline.run(QUESTION, graph_ws.components.query_context, 3)
    step = next(s for s in result.trace if s.step == "ppr_passages")
    assert step.params["passage_weight"] == 0.2 and step.params["damping"] == 0.6
    assert 0 < len(result.items) <= 3 and all(i.kind == "chunk" and i.text for i in result.items)
