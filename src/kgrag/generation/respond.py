"""A query end to end: run the pipeline, answer with its own strategy or the default, time both.

Kept out of :class:`~kgrag.workspace.Workspace` so that the API, the CLI and a server share one path,
and so a pipeline that owns its answer step (global map-reduce over community reports) needs no change
here: it sets ``Pipeline.answer``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from kgrag.config import KgragConfig
from kgrag.core.answer import Answer
from kgrag.core.context import RetrievalResult, TraceStep
from kgrag.generation.strategy import DEFAULT_STRATEGY
from kgrag.models.llm import llm_free_note
from kgrag.retrieval.answer import AnswerStrategy
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.query_context import QueryContext


@dataclass
class QueryResponse:
    """Retrieved context plus the answer built from it."""

    result: RetrievalResult
    answer: Answer
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.answer.to_dict(), "retrieval": self.result.to_dict(), "timings_ms": self.timings_ms}


def _note(answer: Answer, llm_available: bool) -> str:
    """The trace note of the answer step: which path answered, and why the LLM-free one when it did."""
    if answer.mode == "llm":
        return "llm answer"
    return "extractive answer" if llm_available else llm_free_note("query.generate")


def respond(
    pipeline: Pipeline,
    ctx: QueryContext,
    question: str,
    k: int,
    default: AnswerStrategy = DEFAULT_STRATEGY,
    config: KgragConfig | None = None,
) -> QueryResponse:
    """Retrieve with ``pipeline``, then answer with ``pipeline.answer`` or ``default``; the trace gets a
    ``generate`` step and the timings split retrieval from generation. ``config`` replaces the context's
    config for the answer step only (one request's token budget), leaving the shared context untouched."""
    result = pipeline.run(question, ctx, k)
    retrieval_ms = next((s.ms for s in result.trace if s.step == "total"), 0.0)
    started = time.perf_counter()
    llm = ctx.llm()
    config = config or ctx.config
    answer = (pipeline.answer or default).answer(question, result, llm, ctx.embedder(), config)
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
