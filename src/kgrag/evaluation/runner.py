"""``kgrag eval run``: every question through every pipeline, N times, scored by the chosen metrics (in
their LLM-free and/or LLM-judged versions) and judges, with what each answer cost.

Cost is recorded per question as scores of their own (``cost.*``), split the way lundberg-2026
(Table 4.5) splits it: ``total_tokens`` over every LLM call the pipeline made for the question,
``generation_tokens`` for the answer call alone, ``context_tokens`` for the retrieved text handed to the
generator (for the extractive answer: everything retrieved), plus latency and the judge's own tokens.
``prompt_tokens`` and ``completion_tokens`` split the answer call (and ``judge_prompt_tokens`` /
``judge_completion_tokens`` the judge calls), since the two are priced differently.
Because they are scores, they are aggregated, stored and compared exactly like quality is.

Every answer also leaves an :class:`~kgrag.core.eval_records.EvalTrace`: the answer, the context items
handed to the generator, the dataset's evidence, the answer call's usage, every judge request and reply
(reported by :func:`kgrag.evaluation.judges.call.recording`) and every semantic similarity a metric
computed, so each stored score can be audited and computed again from the export alone.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from kgrag.core.eval_records import EvalScore, EvalTrace
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.intervals import Bootstrap
from kgrag.evaluation.judges.base import AnswerJudge, JudgeSetup
from kgrag.evaluation.judges.call import JudgeCall, recording
from kgrag.evaluation.metrics.base import Measured, Metric, MetricTools, Sample, measure
from kgrag.evaluation.metrics.statements import plain_answer
from kgrag.generation import QueryResponse

RunMode = Literal["llm-free", "llm", "both"]
QueryFn = Callable[[str, str, int], QueryResponse]
LLM_SUFFIX = ":llm"
COSTS = (
    "cost.context_tokens",
    "cost.prompt_tokens",
    "cost.completion_tokens",
    "cost.generation_tokens",
    "cost.total_tokens",
    "cost.latency_cold_ms",
    "cost.latency_warm_ms",
    "cost.judge_prompt_tokens",
    "cost.judge_completion_tokens",
)


@dataclass(frozen=True)
class RunPlan:
    """What to run: pipelines, repeats, metric names, metric mode, answer judges, k."""

    pipelines: list[str]
    metrics: list[str]
    runs: int = 1
    mode: RunMode = "llm-free"
    judges: list[str] = field(default_factory=list)
    k: int = 5
    reuse_answers: bool = False  # replay cached answers instead of generating each run's own
    baseline: str | None = None  # the pipeline paired differences are taken against


@dataclass(frozen=True)
class RunOptions:
    """How a run treats repeats and uncertainty: replay cached answers or write new ones each run, the
    pipeline paired differences are taken against (default: the first named), the judge's sampling
    temperature (default ``evaluation.judge_temperature``) and the bootstrap settings."""

    reuse_answers: bool = False
    baseline: str | None = None
    judge_temperature: float | None = None
    bootstrap: Bootstrap = field(default_factory=Bootstrap)


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
    prompt = int(usage.get("prompt_tokens", 0) or 0)
    completion = int(usage.get("completion_tokens", 0) or 0)
    generation = prompt + completion
    return {
        "cost.context_tokens": Measured(float(context_tokens)),
        "cost.prompt_tokens": Measured(float(prompt)),
        "cost.completion_tokens": Measured(float(completion)),
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


@dataclass(frozen=True)
class Answered:
    """One question through one pipeline in one run: its scores and what they rest on."""

    scores: dict[str, Measured]
    trace: dict[str, object]


def _trace(
    item: QAItem,
    response: QueryResponse,
    answer: str,
    judge_calls: list[JudgeCall],
    similarities: list[SimilarityPair],
) -> dict[str, object]:
    contexts = [
        {"id": i.id, "kind": i.kind, "text": i.text, "score": i.score, "chunk_ids": list(i.chunk_ids)}
        for i in response.result.items
    ]
    usage = {k: v for k, v in response.answer.usage.items() if isinstance(v, str | int | float | bool | None)}
    return {
        "question": item.question,
        "question_type": item.question_type,
        "reference": item.answer,
        "answer": answer,
        "answer_raw": response.answer.text,
        "answer_mode": response.answer.mode,
        "citations": [str(c) for c in response.answer.citations],
        "contexts": contexts,
        "evidence": list(item.evidence),
        "usage": usage,
        "judge_calls": judge_calls,
        "similarities": similarities,
    }


class SimilarityPair(TypedDict):
    """Two texts the semantic similarity compared, with the cosine it gave."""

    a: str
    b: str
    cosine: float


def recording_similarity(
    similarity: Callable[[str, str], float],
) -> tuple[Callable[[str, str], float], list[SimilarityPair]]:
    """``similarity`` that also keeps each pair of texts it compared with the cosine, so an exported
    run can be re-scored without the embedder (:mod:`kgrag.evaluation.rescore`)."""
    seen: list[SimilarityPair] = []

    def recorded(a: str, b: str) -> float:
        value = similarity(a, b)
        seen.append({"a": a, "b": b, "cosine": value})
        return value

    return recorded, seen


def run_question(item: QAItem, pipeline: str, plan: RunPlan, parts: RunParts, run_index: int) -> Answered:
    """Answer one question with one pipeline and score it: metric name → measured value, and the trace."""
    before = parts.llm_tokens() if parts.llm_tokens else 0
    started = time.perf_counter()
    response = parts.query(item.question, pipeline, plan.k)
    latency_ms = (time.perf_counter() - started) * 1000
    delta = (parts.llm_tokens() - before) if parts.llm_tokens else 0
    contexts = [i.text for i in response.result.items]
    answer = plain_answer(response.answer.text)
    sample = Sample(item.question, item.answer, answer, contexts, item.evidence, item.question_type)
    similarity, similarities = recording_similarity(parts.tools.similarity)
    recorded = dataclasses.replace(parts, tools=dataclasses.replace(parts.tools, similarity=similarity))
    with recording() as judge_calls:
        scores = score_answer(sample, plan, recorded, run_index)
    scores.update(_answer_costs(response, parts, delta, latency_ms))
    judge_prompt = sum(c["prompt_tokens"] for c in judge_calls)
    judge_completion = sum(c["completion_tokens"] for c in judge_calls)
    scores["cost.judge_prompt_tokens"] = Measured(float(judge_prompt))
    scores["cost.judge_completion_tokens"] = Measured(float(judge_completion))
    scores["cost.judge_tokens"] = Measured(float(judge_prompt + judge_completion))
    return Answered(scores, _trace(item, response, answer, judge_calls, similarities))


@dataclass(frozen=True)
class RunOutput:
    """Every score row and every provenance trace of a run."""

    scores: list[EvalScore]
    traces: list[EvalTrace]


def run_evaluation(
    items: Sequence[QAItem],
    plan: RunPlan,
    parts: RunParts,
    run_id: str,
    on_question: Callable[[], None] | None = None,
) -> RunOutput:
    """All runs × questions × pipelines: one :class:`EvalScore` per metric per answer, one trace per answer."""
    scores: list[EvalScore] = []
    traces: list[EvalTrace] = []
    for run_index in range(plan.runs):
        for item in items:
            for pipeline in plan.pipelines:
                answered = run_question(item, pipeline, plan, parts, run_index)
                scores.extend(
                    EvalScore(run_id, run_index, pipeline, item.id, item.question_type, name, m.value, m.note)
                    for name, m in answered.scores.items()
                )
                traces.append(EvalTrace(run_id, run_index, pipeline, item.id, answered.trace))
            if on_question is not None:
                on_question()
    return RunOutput(scores, traces)
