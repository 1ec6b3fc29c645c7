"""Recipes composed where generation lives: a retrieval pipeline plus the answer strategy it names.

A pipeline says *which* answer it wants (``Pipeline.answer``: a name in the ``answer_strategy`` registry,
``KINDS["answer_strategy"]``, or a strategy object of a plug-in) and retrieval never imports how
answers are made; this module turns that into the strategy that answers. A routing pipeline (``auto``)
is answered the way the pipeline it routed to is, so a question routed to ``global`` gets the map-reduce
answer over the reports it retrieved.
"""

from __future__ import annotations

from typing import Any, cast

from kgrag.core.context import RetrievalResult
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.generation.strategy import DEFAULT_STRATEGY, AnswerStrategy
from kgrag.retrieval.pipelines import Pipeline, build_pipeline
from kgrag.retrieval.query_context import QueryContext

ANSWER_STRATEGIES: RegistryKind[Any] = RegistryKind("answer_strategy")
"""How a pipeline's retrieval is answered (``KINDS["answer_strategy"]``), by name."""


def resolve_strategy(answer: str | Any | None, strategies: Registry[Any] | None = None) -> AnswerStrategy:
    """The strategy ``answer`` names (a registry name), is (an object), or the default (None)."""
    if answer is None:
        return DEFAULT_STRATEGY
    if isinstance(answer, str):
        return cast(AnswerStrategy, (strategies or ANSWER_STRATEGIES.new()).load(answer))
    return cast(AnswerStrategy, answer)


def answer_strategy(
    pipeline: Pipeline, result: RetrievalResult, ctx: QueryContext, strategies: Registry[Any] | None = None
) -> AnswerStrategy:
    """How ``result`` of ``pipeline`` is answered: the pipeline's own strategy, else that of the pipeline a
    routing step sent the question to, else the default; names are looked up in ``strategies`` (default:
    the context's workspace registry)."""
    answer = pipeline.answer
    if answer is None and result.route is not None:
        answer = build_pipeline(ctx.pipelines, result.route.pipeline, ctx.config).answer
    return resolve_strategy(answer, strategies if strategies is not None else ctx.registries.get(ANSWER_STRATEGIES))
