"""A retrieval evaluation (evidence recall@k per question and pipeline) kept as a stored evaluation run.

``ws.eval.retrieval`` returns its report and stores nothing; the CLI and a server's job both store it
(``ws.eval.store_retrieval``), so a run started either way is listed, reported and shown in the web app.
It is stored like a metric run (``kind = "run"``): one score row per question, pipeline and measure, with
the questions and the ids each pipeline retrieved in the payload, so a per-question view can show them
without the dataset file, and with what each pipeline handed over (items, passages, context tokens,
latency percentiles) as the printed report gives it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TypedDict

from kgrag.core.eval_records import EvalRunRecord, EvalScore
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from kgrag.evaluation.session import EvalRun, finish, new_eval_id
from kgrag.store import Store

RETRIEVAL_LABEL = "retrieval"


class HandedOver(TypedDict):
    """A stored retrieval run's per-pipeline figures: context budget (tokens), the ``mean``, ``min`` and
    ``max`` per question of the items and passages handed over, the mean context tokens and the ``p50``
    and ``p95`` latency in ms."""

    context_budget: dict[str, int]
    items: dict[str, dict[str, float]]
    passages: dict[str, dict[str, float]]
    context_tokens: dict[str, float]
    latency_ms: dict[str, dict[str, float]]


def _scores(run_id: str, report: RetrievalEvalReport) -> list[EvalScore]:
    scores = []
    for o in report.outcomes:
        unmeasured = "" if o.recall is not None else "no evidence for this question"
        for metric, value in (
            ("evidence-recall", o.recall),
            ("chunk-recall", o.chunk_recall),
            ("cost.context_tokens", float(o.context_tokens)),
            ("cost.latency_ms", round(o.latency_ms, 3)),
        ):
            note = unmeasured if value is None else ""
            scores.append(EvalScore(run_id, 0, o.pipeline, o.id, o.question_type, metric, value, note))
    return scores


def handed_over(report: RetrievalEvalReport) -> HandedOver:
    """What each pipeline handed over and how long it took, the figures of the printed report's tables."""
    return {
        "context_budget": dict(report.budgets),
        "items": report.handed_over("items"),
        "passages": report.handed_over("passages"),
        "context_tokens": report.mean_context_tokens(),
        "latency_ms": report.latency(),
    }


def store_retrieval_run(
    store: Store, items: Sequence[QAItem], report: RetrievalEvalReport, dataset: str, label: str = ""
) -> EvalRun:
    """Save ``report`` (over ``items``) as an evaluation run and return it with its summary."""
    run_id = new_eval_id("run")
    retrieved: dict[str, dict[str, list[str]]] = {}
    for o in report.outcomes:
        retrieved.setdefault(o.id, {})[o.pipeline] = list(o.retrieved)
    plan: dict[str, object] = {"pipelines": report.pipelines, "metrics": ["evidence-recall"], "runs": 1}
    plan |= {"mode": "retrieval", "k": report.k, **({"baseline": report.baseline} if report.baseline else {})}
    payload = {
        "id": run_id,
        "plan": plan,
        "k": report.k,
        "bootstrap": report.settings.describe(),
        "variation": "nothing varies: one run of LLM-free retrieval",
        "threshold": report.threshold,
        "questions": len(items),
        "dataset": dataset,
        "items": [
            {"id": i.id, "question": i.question, "reference": i.answer, "type": i.question_type, "evidence": i.evidence}
            for i in items
        ],
        "retrieved": retrieved,
        "evidence_check": report.evidence.payload() if report.evidence else None,
        "handed_over": handed_over(report),
    }
    record = EvalRunRecord(run_id, "run", time.time(), dataset, label or RETRIEVAL_LABEL, payload)
    scores = _scores(run_id, report)
    store.eval_runs.save(record, scores)
    return finish(record, scores)
