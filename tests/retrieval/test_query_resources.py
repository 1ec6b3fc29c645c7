"""Query-time resources are named providers in the one registry type: a new resource is a new
``QueryResource`` registered by name (no change to ``QueryContext``), one registered under a built-in's
name replaces it, and the configured reranker is built from the query context alone."""

from __future__ import annotations

import pytest

from kgrag import Workspace
from kgrag.core.errors import ConfigError
from kgrag.core.registry import Registry
from kgrag.retrieval import QueryContext, WordOverlapReranker
from kgrag.retrieval.query_context import QueryResource
from kgrag.retrieval.resources.reranker import RERANKER
from kgrag.retrieval.resources.stored import VECTOR_COUNT


def _context(ws: Workspace, resources: Registry | None = None) -> QueryContext:  # type: ignore[type-arg]
    parts = ws.components
    return QueryContext(ws.store, ws.config, model_id=parts.vector_key, embedder=parts.embedder, llm=parts.llm,
                        pipelines=parts.pipelines, resources=resources)  # fmt: skip


def test_a_new_resource_is_one_registration_built_once_per_generation(graph_ws: Workspace) -> None:
    builds: list[int] = []

    def chunk_count(ctx: QueryContext) -> int:
        builds.append(1)
        return ctx.store.chunks.count()

    ctx = _context(graph_ws)
    ctx.resources.register("chunk_count", QueryResource("chunk_count", chunk_count, per_generation=True))
    assert ctx.get("chunk_count") == ctx.get("chunk_count") == graph_ws.store.chunks.count() > 0
    assert len(builds) == 1 and ctx.created("chunk_count")
    relation = graph_ws.store.graph.relations()[0]
    graph_ws.store.graph.save_relations([relation])  # a committed write: per-generation values rebuild
    ctx.get("chunk_count")
    assert len(builds) == 2


def test_a_resource_registered_under_a_builtin_name_replaces_it(graph_ws: Workspace) -> None:
    ctx = _context(graph_ws)
    mine = WordOverlapReranker()
    ctx.resources.register("reranker", QueryResource("reranker", lambda _: mine), replace=True)
    assert ctx.get(RERANKER) is mine
    assert ctx.get(VECTOR_COUNT) == graph_ws.store.vectors.count(graph_ws.components.vector_key)


def test_an_unknown_resource_name_fails_with_the_known_ones(graph_ws: Workspace) -> None:
    with pytest.raises(ConfigError, match=r"unknown query resource 'nope'.*graph"):
        _context(graph_ws).get("nope")


def test_the_configured_reranker_is_built_from_the_context_alone(graph_ws: Workspace) -> None:
    ctx = _context(graph_ws)
    assert not ctx.created(RERANKER) and not ctx.created("embedder")
    reranker = ctx.get(RERANKER)
    assert type(reranker).__name__ == "FusedReranker"  # rerank.provider's default
    items = graph_ws.retrieve("Who leads the Platform team?", "hybrid", 5).items
    ranked = reranker.rerank("Who leads the Platform team?", items, 3)
    assert len(ranked) == 3 and all("rerank" in item.scores for item in ranked)
