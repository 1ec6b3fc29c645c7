"""The step that applies the query context's reranker, when one is set."""

from __future__ import annotations

import time
from dataclasses import dataclass

from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps import QueryState


@dataclass(frozen=True)
class Rerank:
    """Reorder the ranked items with ``ctx.reranker`` and cut them to ``k``; a pass-through (recorded in
    the trace) when the workspace has no reranker, so one recipe serves both set-ups."""

    name: str = "rerank"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        reranker = env.reranker
        if reranker is None:
            state.record(self.name, {"k": state.k}, len(state.items), started, "no reranker configured: order kept")
            return
        state.items = reranker.rerank(state.query, state.items, state.k)
        state.record(self.name, {"k": state.k, "reranker": type(reranker).__name__}, len(state.items), started)
