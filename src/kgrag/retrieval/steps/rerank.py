"""The step that applies the query context's reranker (the configured one, or an explicit one)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.reranker import RERANKER
from kgrag.retrieval.steps.basic import QueryState


@dataclass(frozen=True)
class Rerank:
    """Reorder the ranked passages with the workspace's reranker and cut them to ``k`` (graph facts are
    kept for the budget step to weigh); a pass-through (recorded in the trace) when the workspace has no
    reranker, so one recipe serves both set-ups. Passages must be hydrated first: rerankers read text."""

    name: str = "rerank"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        reranker = env.get(RERANKER)
        if reranker is None:
            state.record(self.name, {"k": state.k}, len(state.items), started, "no reranker configured: order kept")
            return
        passages = [item for item in state.items if item.kind == "chunk"]
        facts = [item for item in state.items if item.kind != "chunk"]
        state.items = reranker.rerank(state.query, passages, state.k) + facts
        state.record(self.name, {"k": state.k, "reranker": type(reranker).__name__}, len(state.items), started)
