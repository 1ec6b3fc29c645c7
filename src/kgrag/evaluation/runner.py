"""``kgrag eval run``: every question through every pipeline, N times, scored by the chosen metrics (in
their LLM-free and/or LLM-judged versions) and judges, with what each answer cost.

Cost is recorded per question as scores of their own (``cost.*``), split the way lundberg-2026
(Table 4.5) splits it: ``total_tokens`` over every LLM call the pipeline made for the question,
``generation_tokens`` for the answer call alone, ``context_tokens`` for the retrieved text handed to the
generator (for the extractive answer: everything retrieved), plus latency and the judge's own tokens.
Because they are scores, they are aggregated, stored and compared exactly like quality is.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from kgrag.core.eval_records import EvalScore
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.judges.base import AnswerJudge, JudgeSetup
from kgrag.evaluation.metrics.base import Measured, Metric, MetricTools, Sample, measure
from kgrag.evaluation.metrics.statements import plain_answer
from kgrag.generation import QueryResponse

RunMode = Literal["llm-free", "llm", "both"]
QueryFn = Callable[[str, str, int], QueryResponse]
LLM_SUFFIX = ":llm"
COSTS = ("cost.context_tokens", "cost.generation_tokens", "cost.total_tokens", "cost.latency_ms", "cost.judge_tokens")


@dataclass(frozen=True)
class RunPlan:
    """What to run: pipelines, repeats, metric names, metric mode, answer judges, k."""

    pipelines: list[str]
    metrics: list[str]
    runs: int = 1
    mode: RunMode = "llm-free"
    judges: list[str] = field(default_factory=list)
    k: int = 5


@dataclass(frozen=True)
class RunParts:
    """The resolved pieces: how to answer, the metric and judge objects, and how to count tokens."""

    query: QueryFn
    metrics: dict[str, Metric]
    judges: dict[str, AnswerJudge]
    tools: MetricTools
    count_tokens: Callable[[str], int]
    setup: JudgeSetup | None = None
    llm_tokens: Callable[[], int] | None = None


def _answer_costs(response: QueryResponse, parts: RunParts, llm_delta: int, latency_ms: float) -> dict[str, Measured]:
    usage = response.answer.usage
    contexts = [item.text for item in response.result.items]
    context_tokens = usage.get("context_tokens")
    if not isinstance(context_tokens, int):
        context_tokens = sum(parts.count_tokens(text) for text in contexts)
    generation = int(usage.get("prompt_tokens", 0) or 0) + int(usage.get("completion_tokens", 0) or 0)
    return {
        "cost.context_tokens": Measured(float(context_tokens)),
        "cost.generation_tokens": Measured(float(generation)),
        "cost.total_tokens": Measured(float(max(llm_delta, generation))),
        "cost.latency_ms": Measured(round(latency_ms, 3)),
    }


def score_answer(sample: Sample, plan: RunPlan, parts: RunParts, run_index: int) -> dict[str, Measured]:
    """Every chosen metric (LLM-free as ``name``, judged as ``name:llm``) and every judge's scores."""
    tools = dataclasses.replace(parts.tools, seed=run_index)
    scores: dict[str, Measured] = {}
    for name, metric in parts.metrics.items():
        if plan.mode in ("llm-free", "both"):
            scores[name] = measure(metric, sample, tools, "llm-free")
        if plan.mode in ("llm", "both"):
            scores[name + LLM_SUFFIX] = measure(metric, sample, tools, "llm")
    for judge in parts.judges.values():
        if parts.setup is None:
            scores[f"judge.{judge.name}"] = Measured.unmeasured("no LLM judge configured")
            continue
        scores.update(judge.score(sample, parts.setup.with_seed(run_index)))
    return scores


def run_question(item: QAItem, pipeline: str, plan: RunPlan, parts: RunParts, run_index: int) -> dict[str, Measured]:
    """Answer one question with one pipeline and score it; returns metric name → measured value."""
    before = parts.llm_tokens() if parts.llm_tokens else 0
    started = time.perf_counter()
    response = parts.query(item.question, pipeline, plan.k)
    latency_ms = (time.perf_counter() - started) * 1000
    delta = (parts.llm_tokens() - before) if parts.llm_tokens else 0
    contexts = [i.text for i in response.result.items]
    answer = plain_answer(response.answer.text)
    sample = Sample(item.question, item.answer, answer, contexts, item.evidence, item.question_type)
    scores = score_answer(sample, plan, parts, run_index)
    judge_tokens = sum(m.judge_tokens for m in scores.values())
    scores.update(_answer_costs(response, parts, delta, latency_ms))
    scores["cost.judge_tokens"] = Measured(float(judge_tokens))
    return scores


def run_evaluation(
    items: Sequence[QAItem],
    plan: RunPlan,
    parts: RunParts,
    run_id: str,
    on_question: Callable[[], None] | None = None,
) -> list[EvalScore]:
    """All runs × questions × pipelines; returns one :class:`EvalScore` per metric per answer."""
    scores: list[EvalScore] = []
    for run_index in range(plan.runs):
        for item in items:
            for pipeline in plan.pipelines:
                measured = run_question(item, pipeline, plan, parts, run_index)
                scores.extend(
                    EvalScore(run_id, run_index, pipeline, item.id, item.question_type, name, m.value, m.note)
                    for name, m in measured.items()
                )
            if on_question is not None:
                on_question()
    return scores
