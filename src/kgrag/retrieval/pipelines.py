"""Named retrieval pipelines as short declarative recipes of reusable steps.

A :class:`PipelineRegistry` is created per workspace (no module-level mutable registry); plug-ins add
their own recipes with :meth:`PipelineRegistry.register`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from kgrag.config import KgragConfig
from kgrag.core.context import RetrievalResult, TraceStep
from kgrag.core.errors import KgragError
from kgrag.retrieval.env import RetrievalEnv
from kgrag.retrieval.steps import (
    BM25Search,
    DenseSearch,
    FuseRRF,
    Hydrate,
    QueryState,
    Step,
    TakeTop,
    UseStream,
)


@dataclass(frozen=True)
class Pipeline:
    """A name, a one-line description, what it needs (``llm``, ``graph``...) and its steps."""

    name: str
    description: str
    steps: tuple[Step, ...]
    requires: frozenset[str] = frozenset()

    def run(self, query: str, env: RetrievalEnv, k: int) -> RetrievalResult:
        state = QueryState(query=query, k=k, queries=[query])
        started = time.perf_counter()
        for step in self.steps:
            step.run(state, env)
        result = RetrievalResult(
            pipeline=self.name, query=query, items=state.items, trace=state.trace, queries=state.queries
        )
        result.trace.append(_total(started, len(state.items)))
        return result


def _total(started: float, n_out: int) -> TraceStep:
    return TraceStep(step="total", params={}, n_out=n_out, ms=round((time.perf_counter() - started) * 1000, 3))


PipelineFactory = Callable[[KgragConfig], Pipeline]


class PipelineRegistry:
    """Pipelines by name; factories receive the config so recipes pick up pools and constants."""

    def __init__(self) -> None:
        self._factories: dict[str, PipelineFactory] = {}

    def register(self, name: str, factory: PipelineFactory) -> None:
        self._factories[name] = factory

    def names(self) -> list[str]:
        return list(self._factories)

    def build(self, name: str, config: KgragConfig) -> Pipeline:
        factory = self._factories.get(name)
        if factory is None:
            raise KgragError(f"unknown pipeline {name!r}; available: {', '.join(self.names())} (see `kgrag pipelines`)")
        return factory(config)


def _dense(cfg: KgragConfig) -> Pipeline:
    return Pipeline(
        "dense",
        "Exact cosine search over chunk embeddings.",
        (DenseSearch(pool=cfg.retrieval.candidate_pool), UseStream("dense"), TakeTop(), Hydrate()),
    )


def _bm25(cfg: KgragConfig) -> Pipeline:
    return Pipeline(
        "bm25",
        "Lexical BM25 search (SQLite FTS5) over chunk text.",
        (BM25Search(pool=cfg.retrieval.candidate_pool), UseStream("bm25"), TakeTop(), Hydrate()),
    )


def _hybrid(cfg: KgragConfig) -> Pipeline:
    return Pipeline(
        "hybrid",
        f"Dense + BM25 fused by reciprocal rank fusion (k={cfg.retrieval.rrf_k}, lundberg-2026).",
        (
            DenseSearch(pool=cfg.retrieval.candidate_pool),
            BM25Search(pool=cfg.retrieval.candidate_pool),
            FuseRRF(("dense", "bm25"), k=cfg.retrieval.rrf_k),
            TakeTop(),
            Hydrate(),
        ),
    )


def _graph_local(cfg: KgragConfig) -> Pipeline:
    # Imported here: the graph layer imports retrieval modules, so a module-level import would be circular.
    from kgrag.retrieval.graph_steps import GraphLocalSearch

    return Pipeline(
        "graph-local",
        "LightRAG-style local search: query → entities → relations/neighbours → chunks by "
        "provenance count, plus the entity and relation items (lundberg-2026).",
        (GraphLocalSearch(), Hydrate()),
        requires=frozenset({"graph"}),
    )


def builtin_registry() -> PipelineRegistry:
    """A fresh registry holding every built-in pipeline."""
    registry = PipelineRegistry()
    for name, factory in (("dense", _dense), ("bm25", _bm25), ("hybrid", _hybrid), ("graph-local", _graph_local)):
        registry.register(name, factory)
    return registry
