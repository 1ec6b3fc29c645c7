"""Every built-in pipeline on the sample corpus, LLM-free and with a scripted LLM; the context budget;
the router's decisions; graph-local's tie-break."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

import pytest

from kgrag import Workspace
from kgrag.config import LLMConfig
from kgrag.core.builtins import KINDS, new_registry
from kgrag.core.context import ContextItem
from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.documents import content_hash
from kgrag.graph.index import GraphIndex
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule
from kgrag.retrieval import QueryContext, build_pipeline
from kgrag.retrieval.steps.budget import _passages_in_pipeline_order, item_tokens, similarities
from kgrag.retrieval.steps.graph import break_ties, entity_item, relation_item
from kgrag.retrieval.steps.graph_local import rank_chunks
from kgrag.retrieval.steps.paths import BEAM, Path, grow_paths
from kgrag.retrieval.steps.query import prf_rewrites
from kgrag.retrieval.steps.route_graph import RouteGraph
from kgrag.retrieval.steps.router import heuristic_route

QUESTION = "Which rule did the Osprey firmware incident at Águas do Tejo lead to?"
# `community`, `global` and `drift` need built communities; tests/communities covers them on such a workspace.
COMMUNITY_PIPELINES = {"community", "global", "drift"}
ALL = sorted(set(KINDS["pipeline"].builtins) - COMMUNITY_PIPELINES)
LLM_STEPS = {
    "qe": "expand_query",
    "hyde": "hyde",
    "combined": "expand_and_hyde",
    "graph-global": "keywords",
    "graph-hybrid": "keywords",
    "graph-mix": "keywords",
    "graph-mix-rerank": "keywords",
    "auto": "route",
}


def _reply(request: object) -> str:
    """Schema-valid JSON for whichever query-side prompt is asking (matched by its wording)."""
    text = "\n".join(m["content"] for m in request.messages)  # type: ignore[attr-defined]
    if "Classify a question" in text:
        return json.dumps({"route": "multi-hop", "reason": "links an incident to a rule"})
    if "Extract search keywords" in text:
        return json.dumps({"low_level": ["Osprey", "Águas do Tejo"], "high_level": ["firmware rollout rule"]})
    if "Produce two things" in text:
        return json.dumps(
            {
                "rewrites": [
                    "Osprey firmware incident rule",
                    "rule after Osprey update failure",
                    "Águas do Tejo incident consequence",
                ],
                "passage": "The staged rollout rule.",
            }
        )
    if "Write exactly three rewrites" in text:
        return json.dumps({"rewrites": ["Osprey firmware incident rule", "rule after Osprey failure", "Tejo rule"]})
    if "Write one passage" in text:
        return json.dumps({"passage": "After the Osprey incident firmware is rolled out in stages."})
    if "You rank search results" in text:
        return json.dumps({"ranking": [1, 0]})
    return "I don't know based on the provided context."


@pytest.fixture(scope="module")
def scripted_ctx(graph_ws: Workspace) -> Iterator[QueryContext]:
    """The sample workspace's store with a scripted LLM answering every query-side prompt."""
    client = create_llm_client(LLMConfig(provider="scripted"), graph_ws.store,
                               provider=ScriptedProvider([ScriptRule(".", _reply)]))  # fmt: skip
    parts = graph_ws.components
    yield QueryContext(graph_ws.store, graph_ws.config, model_id=parts.embedding_model_id, embedder=parts.embedder,
                       llm=lambda: client, pipelines=parts.pipelines)  # fmt: skip
    client.close()


@pytest.mark.parametrize("name", ALL)
def test_every_pipeline_runs_llm_free_within_the_budget(graph_ws: Workspace, name: str) -> None:
    result = graph_ws.retrieve(QUESTION, name, 5)
    ctx = graph_ws.components.query_context
    assert result.items, name
    assert sum(1 for i in result.items if i.kind == "chunk") <= 5
    spent = sum(item_tokens(i, ctx) for i in result.items)
    assert spent <= graph_ws.config.retrieval.context_tokens or len(result.items) == 1
    if name in LLM_STEPS:
        step = next(s for s in result.trace if s.step == LLM_STEPS[name])
        assert "LLM" in step.note or step.params.get("decided_by") == "heuristics"


@pytest.mark.parametrize("name", sorted(LLM_STEPS))
def test_query_side_steps_use_the_llm_when_configured(
    graph_ws: Workspace, scripted_ctx: QueryContext, name: str
) -> None:
    pipeline = build_pipeline(graph_ws.components.pipelines, name, graph_ws.config)
    result = pipeline.run(QUESTION, scripted_ctx, 5)
    step = next(s for s in result.trace if s.step == LLM_STEPS[name])
    assert step.note in ("llm", "") and result.items
    if name == "qe":
        assert "rule after Osprey failure" in result.queries
    if name == "auto":
        assert step.params["decided_by"] == "llm" and step.params["pipeline"] == "graph-mix-rerank"


def test_context_tokens_is_honoured_per_pipeline(tmp_path: object, graph_ws: Workspace) -> None:
    small = graph_ws.config.model_copy(deep=True)
    small.retrieval.context_tokens = 300
    ctx = graph_ws.components.query_context
    for name in ("hybrid", "graph-local", "ppr", "paths"):
        result = build_pipeline(graph_ws.components.pipelines, name, small).run(QUESTION, ctx, 5)
        assert sum(item_tokens(i, ctx) for i in result.items) <= 300 or len(result.items) == 1, name


def test_paths_explain_each_path_and_report_lambda(graph_ws: Workspace) -> None:
    result = graph_ws.retrieve(QUESTION, "paths", 5)
    fuse = next(s for s in result.trace if s.step == "lambda_fuse")
    assert fuse.params["lambda"] == 0.7 and fuse.params["lambda_from"] == "default"
    paths = next(s for s in result.trace if s.step == "paths").params["paths"]
    assert paths and all("→" in line for line in paths)


def test_router_heuristics(graph_ws: Workspace) -> None:
    graph = RouteGraph(graph_ws.components.query_context.graph_index())
    assert heuristic_route("What are the main themes across the incident reports?", graph)[0] == "global"
    assert heuristic_route("How does the Osprey outage affect Heron?", graph)[0] == "multi-hop"
    assert heuristic_route("What is the expense limit for hotels?", graph)[0] == "local"
    # "linked" and "connected" that name a kind of thing are not connective wording
    assert heuristic_route("How do I remove a linked worktree?", graph)[0] == "local"
    assert heuristic_route("How many connected devices does a hotel allow?", graph)[0] == "local"
    assert heuristic_route("How is the expense limit linked to hotels?", graph)[0] == "multi-hop"
    assert heuristic_route("How are the expense limit and hotels connected?", graph)[0] == "multi-hop"


def test_router_offers_global_only_when_it_can_run(graph_ws: Workspace) -> None:
    question = "What are the main themes across the documents?"
    route = graph_ws.retrieve(question, "auto", 5).trace[0]
    assert route.params["route"] == "global" and route.params["pipeline"] == "graph-mix-rerank"
    assert "no global pipeline available" in route.note and "community reports" in route.note
    registry = new_registry("pipeline")
    registry.register("global", KINDS["pipeline"].builtins["bm25"], replace=True)
    parts = graph_ws.components
    ctx = QueryContext(graph_ws.store, graph_ws.config, model_id=parts.embedding_model_id, embedder=parts.embedder,
                       llm=parts.llm, pipelines=registry)  # fmt: skip
    auto = build_pipeline(registry, "auto", graph_ws.config)
    assert auto.run(question, ctx, 5).trace[0].params["pipeline"] == "global"


def test_graph_local_breaks_ties_by_relevance_not_id(graph_ws: Workspace) -> None:
    """Chunks tied on citations and entity score are ordered at the cut by similarity to the question,
    whatever order (ids hash the corpus location) they arrive in."""
    x, y = list(graph_ws.store.chunks.iter_all())[:2]
    ctx = graph_ws.components.query_context
    for order in ((x, y), (y, x)):
        tied = [(c.id, 1, 0.9) for c in order]
        assert break_ties(tied, 1, ctx, y.text)[0][0] == y.id


def test_rank_chunks_prefers_more_support_over_first_seen() -> None:
    relation = RelationRecord(id="r1", source_id="e1", target_id="e2", label="rel", description="", weight=2.0,
                              chunk_ids=("c-a",))  # fmt: skip
    entity = EntityRecord(id="e1", key="e1", name="e1", type="T", description="", chunk_ids=("c-a", "c-b"))
    ranked = rank_chunks([(entity, 0.9)], [(relation, 2.0)])
    assert [c for c, _, _ in ranked] == ["c-a", "c-b"]


class _Passages:
    """Feedback passages without a store: what ``prf_rewrites`` reads."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    def top(self, n: int) -> list[str]:
        return self.texts[:n]


def test_pseudo_relevance_feedback_breaks_ties_by_first_appearance() -> None:
    """Tied feedback terms come in reading order, not in a set's order (which changes per process)."""
    passages = _Passages(["zeta alpha beta kappa gamma omega", "omega beta zeta kappa alpha gamma", "gamma"])
    rewrites = prf_rewrites("what is delta?", passages)  # type: ignore[arg-type]
    assert rewrites == ["delta", "what is delta? gamma zeta alpha beta kappa omega"]


def test_reranked_passages_keep_the_rerankers_order_in_a_mixed_budget() -> None:
    """Passage values are handed out again in the pipeline's order: the reranker's first passage gets the
    best passage value, facts keep theirs (so the passage/fact mix is what the cosines say)."""
    items = [
        ContextItem(kind="chunk", id="reranked-first", text="a", score=0.0, scores={"rerank": 2.0}),
        ContextItem(kind="entity", id="e", text="b", score=0.0),
        ContextItem(kind="chunk", id="reranked-second", text="c", score=0.0, scores={"rerank": 1.0}),
    ]
    assert _passages_in_pipeline_order(items, [0.3, 0.5, 0.7]) == [0.7, 0.5, 0.3]


def test_budget_similarities_equal_the_store_lookup_by_text_hash(graph_ws: Workspace) -> None:
    """Fact vectors come from the hot graph index; they must be what the store holds for the item's text."""
    ctx = graph_ws.components.query_context
    index = ctx.graph_index()
    items = [entity_item((e, 1.0), 0) for e in list(index.entities.values())[:30]]
    items += [relation_item(r, 1.0, index) for r in list(index.relations.values())[:30]]
    items += graph_ws.retrieve(QUESTION, "hybrid", 5).items
    # whether a path fits the budget beside the passages depends on where chunks end: ask at two sizes
    items += [i for k in (5, 8) for i in graph_ws.retrieve(QUESTION, "paths", k).items]
    assert {"entity", "relation", "chunk", "path"} <= {i.kind for i in items}
    stored = ctx.store.vectors.get(ctx.model_id, [content_hash(i.text) for i in items])
    query = ctx.embed_query(QUESTION)
    expected = [float(stored[h] @ query) if h in stored else None for h in (content_hash(i.text) for i in items)]
    assert any(e is not None for e, i in zip(expected, items, strict=True) if i.kind == "entity")
    assert similarities(items, ctx, QUESTION) == pytest.approx(expected, abs=1e-6)
    assert [s is None for s in similarities(items, ctx, QUESTION)] == [e is None for e in expected]
    renamed = [replace(items[0], text=items[0].text + " (edited)")] if items[0].kind != "chunk" else []
    assert all(s is None for s in similarities(renamed, ctx, QUESTION))  # another text: the store decides


def _grow_one_by_one(
    index: GraphIndex, seeds: list[tuple[str, float]], importance: dict[str, float], hops: int, decay: float
) -> list[Path]:
    """The path growth written as plain loops (what ``grow_paths`` computes with arrays)."""
    frontier = [Path([eid], [], score) for eid, score in seeds if eid in index.entities]
    found: list[Path] = []
    for _ in range(hops):
        grown = []
        for path in frontier:
            for rid in index.adjacency.get(path.nodes[-1], ()):
                relation = index.relations[rid]
                nxt = relation.target_id if relation.source_id == path.nodes[-1] else relation.source_id
                if nxt in path.nodes or nxt not in index.entities:
                    continue
                weight = relation.weight / index.heaviest_relation
                score = path.score * weight * importance.get(nxt, 0.0) * decay
                grown.append(Path([*path.nodes, nxt], [*path.relations, relation], score))
        frontier = sorted(grown, key=lambda p: -p.score)[:BEAM]
        found.extend(frontier)
    return sorted(found, key=lambda p: -p.score)


def test_paths_grow_as_plain_loops_would(graph_ws: Workspace) -> None:
    ctx = graph_ws.components.query_context
    snapshot = ctx.graph_snapshot()
    index, importance = snapshot.index, snapshot.igraph.importance
    ids = list(index.entities)
    for seeds in ([(ids[0], 1.0)], [(e, 1.0 / (n + 1)) for n, e in enumerate(ids[::7])], [("missing", 1.0)]):
        for hops in (1, 2, 3):
            fast = grow_paths(snapshot, seeds, hops, 0.8)
            slow = _grow_one_by_one(index, seeds, importance, hops, 0.8)
            assert [(p.nodes, [r.id for r in p.relations], p.score) for p in fast] == [
                (p.nodes, [r.id for r in p.relations], p.score) for p in slow
            ]
    assert grow_paths(snapshot, [(ids[0], 1.0)], 2, 0.8)  # the sample graph has paths
