"""A query end to end: run the pipeline, answer with the strategy its recipe names, time both.

Kept out of :class:`~kgrag.workspace.Workspace` so that the API, the CLI and a server share one path.
The response carries typed fields for what presenters show — the route a routing pipeline took, the
context tokens handed over, the cost — so the CLI, the server and evaluation read them instead of
searching the trace for step names.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import TypedDict

from kgrag.config import KgragConfig
from kgrag.core.context import RetrievalDict, RetrievalResult, RouteDecision, RouteDict, TraceStep
from kgrag.core.llm_types import StreamSink
from kgrag.core.registry import Registry
from kgrag.generation.corpus_sample import calibrated_config
from kgrag.generation.recipes import answer_strategy
from kgrag.generation.strategy import AnswerStrategy
from kgrag.generation.types import Answer, AnswerDict
from kgrag.models.llm import llm_free_note
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.query_context import QueryContext

ANSWER_STAGES = ("query.generate", "query.global.reduce", "query.drift.reduce")
"""The LLM calls that write the answer a reader sees, which a streamed query streams (a strategy's other
calls, a map step's, are not shown; a plug-in strategy's answer arrives in one piece when it is done)."""


class CostExtras(TypedDict, total=False):
    """What the answer step reported besides tokens and money, when it did."""

    cached: bool
    context_tokens: int
    latency_ms: float


class CostDict(CostExtras):
    """A :class:`QueryCost` as JSON: tokens and money, the extras present, the line."""

    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    line: str


class QueryResponseDict(TypedDict):
    """A :class:`QueryResponse` as JSON."""

    answer: AnswerDict
    retrieval: RetrievalDict
    timings_ms: dict[str, float]
    route: RouteDict | None
    context_tokens: int
    cost: CostDict


@dataclass(frozen=True)
class QueryCost:
    """What answering cost: LLM tokens and money (zero for an extractive answer) and a one-line summary;
    ``extra`` keeps what the answer step reported besides (``cached``, the answer's ``context_tokens``,
    ``latency_ms``)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    line: str = ""
    extra: CostExtras = field(default_factory=lambda: CostExtras())

    @classmethod
    def of(cls, answer: Answer) -> QueryCost:
        usage = answer.usage or {}
        extra: CostExtras = {}
        if "cached" in usage:
            extra["cached"] = usage["cached"]
        if "context_tokens" in usage:
            extra["context_tokens"] = usage["context_tokens"]
        if "latency_ms" in usage:
            extra["latency_ms"] = usage["latency_ms"]
        return cls(
            prompt_tokens=int(usage.get("prompt_tokens", 0) or 0),
            completion_tokens=int(usage.get("completion_tokens", 0) or 0),
            cost_usd=float(usage.get("cost_usd", 0.0) or 0.0),
            line=answer.cost_line,
            extra=extra,
        )

    def to_dict(self) -> CostDict:
        """``prompt_tokens``, ``completion_tokens``, ``cost_usd``, the optional keys present, ``line``."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            **self.extra,
            "line": self.line,
        }


@dataclass
class QueryResponse:
    """Retrieved context plus the answer built from it, with the figures presenters show."""

    result: RetrievalResult
    answer: Answer
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def route(self) -> RouteDecision | None:
        """Where a routing pipeline sent the question (None for every other pipeline)."""
        return self.result.route

    @property
    def context_tokens(self) -> int:
        """Tokens of context handed to the answer: what the pipeline's budget spent, else what the answer
        step reports reading (a strategy that builds its own context), else 0."""
        if self.result.context_tokens is not None:
            return self.result.context_tokens
        value = (self.answer.usage or {}).get("context_tokens", 0)
        return value if isinstance(value, int) else 0

    @property
    def cost(self) -> QueryCost:
        """LLM tokens, money and the cost line of the answer."""
        return QueryCost.of(self.answer)

    def to_dict(self) -> QueryResponseDict:
        return {
            "answer": self.answer.to_dict(),
            "retrieval": self.result.to_dict(),
            "timings_ms": self.timings_ms,
            "route": self.route.to_dict() if self.route else None,
            "context_tokens": self.context_tokens,
            "cost": self.cost.to_dict(),
        }


class _Streamed:
    """Passes deltas on to the caller's sink, remembering whether any came."""

    def __init__(self, sink: StreamSink | None) -> None:
        self.sink = sink
        self.any = False

    def __call__(self, delta: str) -> None:
        self.any = True
        if self.sink is not None:
            self.sink(delta)


def _note(answer: Answer, llm_available: bool) -> str:
    """The trace note of the answer step: which path answered, and why the LLM-free one when it did."""
    if answer.mode == "llm":
        return "llm answer"
    return "extractive answer" if llm_available else llm_free_note("query.generate")


CONTEXT_ONLY_NOTE = "context only: no answer written (no LLM call)"


def context_only(pipeline: Pipeline, ctx: QueryContext, question: str, k: int) -> QueryResponse:
    """Retrieve with ``pipeline`` and write no answer (an empty ``context`` answer): what a reader who
    wants the passages themselves, or another model's prompt, asks for."""
    result = pipeline.run(question, ctx, k)
    retrieval_ms = result.retrieval_ms
    answer = Answer("", [], "context", cost_line=CONTEXT_ONLY_NOTE)
    return QueryResponse(result=result, answer=answer, timings_ms={"retrieval": retrieval_ms, "generation": 0.0})


def respond(
    pipeline: Pipeline,
    ctx: QueryContext,
    question: str,
    k: int,
    default: AnswerStrategy | None = None,
    config: KgragConfig | None = None,
    strategies: Registry[Any] | None = None,
    sink: StreamSink | None = None,
) -> QueryResponse:
    """Retrieve with ``pipeline``, then answer with the strategy its recipe names (``default``, when
    given, replaces the default one); the trace gets a ``generate`` step and the timings split retrieval
    from generation. ``config`` replaces the context's config for the answer step only (one request's
    token budget), leaving the shared context untouched. ``strategies`` is the ``answer_strategy``
    registry (default: built-ins and plug-ins). ``sink`` receives the answer as it is written: an LLM
    answer token by token, any other answer in one piece when it is done; the returned response is the
    same as without it (its text is the checked one: a citation the context did not hold is removed)."""
    result = pipeline.run(question, ctx, k)
    retrieval_ms = result.retrieval_ms
    started = time.perf_counter()
    llm = ctx.llm()
    streamed = _Streamed(sink)
    if sink is not None:
        llm = llm.streaming(streamed, ANSWER_STAGES)
    config = config or ctx.config
    if not llm.available:  # the LLM-free answer: its not-found threshold calibrated on this corpus
        config = calibrated_config(config, question, ctx)
    strategy = answer_strategy(pipeline, result, ctx, strategies)
    if default is not None and pipeline.answer is None and result.route is None:
        strategy = default
    answer = strategy.answer(question, result, llm, ctx.embedder(), config)
    if sink is not None and not streamed.any and answer.text:
        sink(answer.text)  # an extractive (or cached-elsewhere) answer: one piece
    if not answer.cost_line:  # every answer says what it cost, also when that is nothing
        answer.cost_line = f"no LLM call ({answer.mode} answer)"
    generation_ms = round((time.perf_counter() - started) * 1000, 3)
    result.trace.append(
        TraceStep(
            step="generate",
            params={"mode": answer.mode},
            n_out=len(answer.citations),
            ms=generation_ms,
            note=_note(answer, llm.available),
        )
    )
    return QueryResponse(
        result=result, answer=answer, timings_ms={"retrieval": retrieval_ms, "generation": generation_ms}
    )
