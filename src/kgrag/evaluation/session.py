"""Assembling a run from a workspace's parts: metric and judge objects by name, the semantic
similarity from the workspace embedder, judge clients per panel model, and the stored-run record."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypedDict, TypeVar

import numpy as np
from pydantic import BaseModel, JsonValue

from kgrag.config import KgragConfig
from kgrag.config.evaluation import EvaluationConfig
from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalRunRecord, EvalScore, EvalTrace
from kgrag.core.registry import Registry
from kgrag.evaluation.aggregate import question_values, summarize
from kgrag.evaluation.generated_caveats import EVIDENCE_RECALL, generated_caveats
from kgrag.evaluation.intervals import Bootstrap
from kgrag.evaluation.judges.base import AnswerJudge, JudgeDisclosure, JudgeSetup
from kgrag.evaluation.metrics.base import Metric, MetricTools
from kgrag.evaluation.provenance import AnswerCounts, answer_counts, variation
from kgrag.evaluation.runner import RunPlan
from kgrag.evaluation.stats.cells import BootstrapSettings, StatsBlock, Summary
from kgrag.evaluation.verdicts import compare_all, default_baseline
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient

JudgeFactory = Callable[[str | None], LLMClient]
T = TypeVar("T")


class ScoringSettings(TypedDict):
    """What the metrics and judges of a run read besides their inputs; each table is the part's own
    settings model dumped to JSON (its shape is the part's)."""

    evidence_overlap: float
    judge_temperature: float
    metrics: dict[str, dict[str, JsonValue]]
    judges: dict[str, dict[str, JsonValue]]


class ProvenanceSummary(TypedDict):
    """The run-level facts a report needs to be read right."""

    bootstrap: BootstrapSettings
    variation: str
    answers: AnswerCounts


class _StoredBootstrap(BaseModel):
    """The interval settings kept in a stored run's payload (defaults for runs stored without them)."""

    resamples: int = 2000
    seed: int = 0
    level: float = 0.95


@dataclass(frozen=True)
class EvalRun:
    """A finished (and stored) run: its record, every score, the summary derived from them (means with
    intervals per pipeline × metric × type) and ``stats``: bootstrap settings, baseline, paired differences
    and verdicts (:func:`kgrag.evaluation.verdicts.compare_all`); ``caveats``: what a reader must know about
    its questions (:mod:`kgrag.evaluation.generated_caveats`)."""

    record: EvalRunRecord
    scores: list[EvalScore]
    summary: Summary
    stats: StatsBlock
    caveats: list[str] = field(default_factory=list)


def new_eval_id(kind: str) -> str:
    return f"{kind}-" + time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:4]


def embedder_similarity(embedder: Embedder) -> Callable[[str, str], float]:
    """Cosine similarity of two texts' embeddings (the SS term of answer accuracy)."""

    def similarity(a: str, b: str) -> float:
        if not a.strip() or not b.strip():
            return 0.0
        va, vb = np.asarray(embedder.embed([a, b]), dtype=np.float64)
        denominator = float(np.linalg.norm(va) * np.linalg.norm(vb))
        return 0.0 if denominator == 0 else float(va @ vb) / denominator

    return similarity


def pick(registry: Registry[Callable[[], T]], names: Sequence[str], what: str) -> dict[str, T]:
    """Instances of the named entries; an unknown name fails before anything runs, listing the known."""
    chosen: dict[str, T] = {}
    for name in names:
        if name not in registry:
            raise KgragError(f"unknown {what} {name!r}; known: {', '.join(registry.names())}")
        chosen[name] = registry.load(name)()
    return chosen


def judge_setup(
    config: KgragConfig, factory: JudgeFactory, seed: int = 0, temperature: float | None = None
) -> JudgeSetup | None:
    """One client per panel model (``evaluation.judge_models``, else the configured model) sampling at
    ``temperature`` (default ``evaluation.judge_temperature``); None when the LLM is ``none``."""
    if config.llm.provider == "none":
        return None
    if temperature is not None and not 0 <= temperature <= 2:
        raise KgragError(f"--judge-temperature must be between 0 and 2 (got {temperature})")
    models: list[str | None] = list(config.evaluation.judge_models) or [None]
    clients = tuple(factory(model) for model in models)
    chosen = config.evaluation.judge_temperature if temperature is None else temperature
    return JudgeSetup(clients, chosen, seed, config.evaluation.judges)


def metric_tools(config: KgragConfig, embedder: Embedder, setup: JudgeSetup | None) -> MetricTools:
    ev = config.evaluation
    return MetricTools(
        similarity=embedder_similarity(embedder),
        judge=setup.primary if setup else None,
        evidence_overlap=ev.evidence_overlap,
        temperature=setup.temperature if setup else ev.judge_temperature,
        settings=ev.metrics,
    )


def scoring_settings(ev: EvaluationConfig) -> ScoringSettings:
    """What the metrics and judges read besides their inputs, stored with the run so an export can be
    re-scored (:mod:`kgrag.evaluation.rescore`): the evidence overlap and each metric's and judge's table."""
    return {
        "evidence_overlap": ev.evidence_overlap,
        "judge_temperature": ev.judge_temperature,
        "metrics": {name: table.model_dump(mode="json") for name, table in ev.metrics.items()},
        "judges": {name: table.model_dump(mode="json") for name, table in ev.judges.items()},
    }


def judge_disclosure(
    setup: JudgeSetup | None, metrics: dict[str, Metric], judges: dict[str, AnswerJudge], llm_metrics: bool
) -> JudgeDisclosure | None:
    """Models, prompt versions and temperature of every LLM call the scores depend on."""
    if setup is None or (not judges and not llm_metrics):
        return None
    prompts = [p for j in judges.values() for p in j.prompts]
    if llm_metrics:
        prompts += [METRIC_PROMPTS[name] for name in metrics if name in METRIC_PROMPTS]
        prompts += [p for m in metrics.values() for p in getattr(m, "prompts", ()) if p not in prompts]
    return setup.describe(prompts)


METRIC_PROMPTS = {
    "answer-accuracy": "eval_answer_accuracy",
    "coverage": "eval_coverage",
    "faithfulness": "eval_faithfulness",
    "evidence-recall": "eval_evidence_recall",
    "context-relevance": "eval_context_relevance",
}


def bootstrap_of(payload: dict[str, JsonValue]) -> Bootstrap:
    """The interval settings a run was stored with (runs stored before intervals existed get the default)."""
    stored = _StoredBootstrap.model_validate(payload.get("bootstrap") or {})
    return Bootstrap(stored.resamples, stored.seed, stored.level)


def finish(record: EvalRunRecord, scores: list[EvalScore], baseline: str | None = None) -> EvalRun:
    """Summary and statistics of a run from its scores; ``baseline`` overrides the one it was run with."""
    settings = bootstrap_of(record.payload)
    plan = record.payload.get("plan") or {}
    pipelines = list(plan.get("pipelines") or sorted({s.pipeline for s in scores}))
    chosen = baseline or plan.get("baseline") or default_baseline(pipelines)
    summary = summarize(scores, settings)
    if chosen is not None and summary and chosen not in summary:
        raise KgragError(f"baseline {chosen!r} is not a pipeline of this run (pipelines: {', '.join(summary)})")
    metrics = sorted({m for rows in summary.values() for m in rows if not m.startswith("cost.")})
    stats = compare_all(question_values(scores), metrics, chosen, settings)
    rows = (
        (s.question_id, s.question_type, s.pipeline, s.value if s.metric == EVIDENCE_RECALL else None)
        for s in scores
        if not s.metric.startswith("cost.")
    )
    return EvalRun(record, scores, summary, stats, generated_caveats(rows))


def provenance_summary(
    plan: RunPlan, bootstrap: Bootstrap, traces: Sequence[EvalTrace], setup: JudgeSetup | None
) -> ProvenanceSummary:
    """The run-level facts a report needs to be read right: interval settings, what varies between runs,
    and how many answers the LLM wrote or were replayed from the cache."""
    return {
        "bootstrap": bootstrap.describe(),
        "variation": variation(plan.runs, plan.reuse_answers, traces, setup.temperature if setup else None),
        "answers": answer_counts(traces),
    }


def compare_baseline(baseline: str | None, names: Sequence[str]) -> str | None:
    """``--baseline`` for a comparison of runs: a full ``NAME @RUN`` label, or a name matching one label."""
    if baseline is None or baseline in names:
        return baseline
    matches = [n for n in names if n.split(" @")[0] == baseline]
    if not matches:
        raise KgragError(f"baseline {baseline!r} is not a pipeline of these runs ({', '.join(names)})")
    return matches[0]


@contextmanager
def fresh_calls(llm: LLMClient | None, setup: JudgeSetup | None, fresh: bool) -> Iterator[None]:
    """While evaluating, answer and judge calls go to the server instead of the response cache (each run
    measures its own answers and judging, and its cost is what was spent); replies are still cached."""
    clients = ([llm] if llm is not None else []) + (list(setup.clients) if setup is not None else [])
    if not fresh:
        clients = list(setup.clients) if setup is not None else []
    saved = [(c.runner, c.runner.read_cache) for c in clients]
    for runner, _ in saved:
        runner.read_cache = False
    try:
        yield
    finally:
        for runner, before in saved:
            runner.read_cache = before
