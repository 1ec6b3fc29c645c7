"""A retrieval pipeline: a named, declarative recipe of reusable steps, and how recipes are built.

Recipes live one per file in :mod:`kgrag.retrieval.recipes` and are registered by name in
``KINDS["pipeline"]`` (:mod:`kgrag.core.builtins`); plug-ins add theirs through the ``kgrag.pipelines``
entry-point group, code through ``ws.pipelines.register(name, factory)``. A factory receives the name it
is registered under and the config, so the registry key is the only place a name is written and a
recipe can read its own ``[retrieval.pipelines.<name>]`` table.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from kgrag.config import KgragConfig
from kgrag.core.context import RetrievalResult, TraceStep
from kgrag.core.errors import ConfigError, KgragError
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.requirements import enforce_requirements
from kgrag.retrieval.steps.basic import QueryState, Step


@dataclass(frozen=True)
class Pipeline:
    """A name, a one-line description, what it needs (``llm``, ``graph``, ``embeddings``), its steps and,
    optionally, how it is answered: ``answer`` names an entry of the ``answer_strategy`` registry (e.g.
    ``"global"``: map-reduce over community reports) or is a strategy object with the
    :class:`kgrag.generation.strategy.AnswerStrategy` shape (a plug-in's own); None: the default one.
    Generation resolves it (:func:`kgrag.generation.recipes.answer_strategy`): retrieval only says which."""

    name: str
    description: str
    steps: tuple[Step, ...]
    requires: frozenset[str] = frozenset()
    answer: str | Any | None = None

    def before(self, step_name: str) -> Pipeline:
        """The same pipeline cut just before its first step named ``step_name`` (e.g. ``rerank``: the pool
        a reranker receives, for tuning or measuring it)."""
        cut = next(i for i, step in enumerate(self.steps) if step.name == step_name)
        return replace(self, steps=self.steps[:cut])

    def run(self, query: str, ctx: QueryContext, k: int) -> RetrievalResult:
        """Check the requirements, then run every step over a fresh state (so runs never share state),
        all of them against one store generation (:meth:`~kgrag.store.base.Store.steady_generation`)."""
        with ctx.store.steady_generation():
            enforce_requirements(self.name, self.requires, ctx)
            state = QueryState(query=query, k=k, queries=[query], pipeline=self.name)
            started = time.perf_counter()
            for step in self.steps:
                step.run(state, ctx)
        result = RetrievalResult(
            pipeline=self.name,
            query=query,
            items=state.items,
            trace=state.trace,
            queries=state.queries,
            route=state.route,
            context_tokens=state.context_tokens,
            intermediate=state.intermediate,
            retrieval_ms=round((time.perf_counter() - started) * 1000, 3),
        )
        result.trace.append(TraceStep(step="total", params={}, n_out=len(state.items), ms=result.retrieval_ms))
        return result


PipelineFactory = Callable[[str, KgragConfig], Pipeline]
"""``factory(name, config) -> Pipeline``: what ``KINDS["pipeline"]`` entries and plug-ins point at."""
PIPELINES: RegistryKind[PipelineFactory] = RegistryKind("pipeline")


def build_pipeline(registry: Registry[PipelineFactory], name: str, config: KgragConfig, origin: str = "") -> Pipeline:
    """The pipeline registered as ``name``, built for ``config``; the registry key is its name. ``origin``
    names where an unknown name came from (a setting rather than the command line)."""
    if name not in registry:
        close = difflib.get_close_matches(name, registry.names(), n=1, cutoff=0.75)
        hint = f"did you mean {close[0]!r}? " if close else ""
        where = f" ({origin})" if origin else ""
        raise KgragError(
            f"unknown pipeline {name!r}{where}; {hint}available: {', '.join(registry.names())} (see `kgrag pipelines`)"
        )
    pipeline = registry.create(name, name, config)
    if not isinstance(pipeline, Pipeline):
        raise ConfigError(
            f"pipeline {name!r} ({registry.entry(name).location}) returned {type(pipeline).__name__}, "
            "not a kgrag.retrieval.Pipeline"
        )
    return pipeline if pipeline.name == name else replace(pipeline, name=name)
