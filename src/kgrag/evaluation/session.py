"""Assembling a run from a workspace's parts: metric and judge objects by name, the semantic
similarity from the workspace embedder, judge clients per panel model, and the stored-run record."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgrag.config import KgragConfig
from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalRunRecord, EvalScore
from kgrag.core.registry import Registry
from kgrag.evaluation.aggregate import summarize
from kgrag.evaluation.judges.base import AnswerJudge, JudgeSetup
from kgrag.evaluation.metrics.base import Metric, MetricTools
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient

JudgeFactory = Callable[[str | None], LLMClient]


@dataclass(frozen=True)
class EvalRun:
    """A finished (and stored) run: its record, every score, and the summary derived from them."""

    record: EvalRunRecord
    scores: list[EvalScore]
    summary: dict[str, Any]


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


def pick(registry: Registry[Any], names: Sequence[str], what: str) -> dict[str, Any]:
    """Instances of the named entries; an unknown name fails before anything runs, listing the known."""
    chosen: dict[str, Any] = {}
    for name in names:
        if name not in registry:
            raise KgragError(f"unknown {what} {name!r}; known: {', '.join(registry.names())}")
        chosen[name] = registry.load(name)()
    return chosen


def judge_setup(config: KgragConfig, factory: JudgeFactory, seed: int = 0) -> JudgeSetup | None:
    """One client per panel model (``evaluation.judge_models``, else the configured model); None when the
    LLM is ``none``."""
    if config.llm.provider == "none":
        return None
    models: list[str | None] = list(config.evaluation.judge_models) or [None]
    clients = tuple(factory(model) for model in models)
    return JudgeSetup(clients, config.evaluation.judge_temperature, seed, config.evaluation.judges)


def metric_tools(config: KgragConfig, embedder: Embedder, setup: JudgeSetup | None) -> MetricTools:
    ev = config.evaluation
    return MetricTools(
        similarity=embedder_similarity(embedder),
        judge=setup.primary if setup else None,
        evidence_overlap=ev.evidence_overlap,
        temperature=ev.judge_temperature,
        settings=ev.metrics,
    )


def judge_disclosure(
    setup: JudgeSetup | None, metrics: dict[str, Metric], judges: dict[str, AnswerJudge], llm_metrics: bool
) -> dict[str, Any] | None:
    """Models, prompt versions and temperature of every LLM call the scores depend on."""
    if setup is None or (not judges and not llm_metrics):
        return None
    prompts = [p for j in judges.values() for p in j.prompts]
    if llm_metrics:
        prompts += [METRIC_PROMPTS[name] for name in metrics if name in METRIC_PROMPTS]
    return setup.describe(prompts)


METRIC_PROMPTS = {
    "answer-accuracy": "eval_answer_accuracy",
    "coverage": "eval_coverage",
    "faithfulness": "eval_faithfulness",
    "evidence-recall": "eval_evidence_recall",
    "context-relevance": "eval_context_relevance",
}


def finish(record: EvalRunRecord, scores: list[EvalScore]) -> EvalRun:
    return EvalRun(record, scores, summarize(scores))
