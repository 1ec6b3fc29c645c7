"""A retrieval evaluation (evidence recall@k per question and pipeline) kept as a stored evaluation run.

``ws.eval.retrieval`` returns its report and stores nothing (the CLI prints it); a server starts it as a
job and the client reads the outcome later, so it is stored like a metric run (``kind = "run"``): one
score row per question, pipeline and measure, with the questions and the ids each pipeline retrieved in
the payload, so a per-question view can show them without the dataset file.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from kgrag.core.eval_records import EvalRunRecord, EvalScore
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from kgrag.evaluation.session import EvalRun, finish, new_eval_id
from kgrag.store import Store

RETRIEVAL_LABEL = "retrieval"


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


def store_retrieval_run(
    store: Store, items: Sequence[QAItem], report: RetrievalEvalReport, dataset: str, label: str = ""
) -> EvalRun:
    """Save ``report`` (over ``items``) as an evaluation run and return it with its summary."""
    run_id = new_eval_id("run")
    retrieved: dict[str, dict[str, list[str]]] = {}
    for o in report.outcomes:
        retrieved.setdefault(o.id, {})[o.pipeline] = list(o.retrieved)
    payload = {
        "id": run_id,
        "plan": {"pipelines": report.pipelines, "metrics": ["evidence-recall"], "runs": 1, "mode": "retrieval"},
        "k": report.k,
        "threshold": report.threshold,
        "questions": len(items),
        "dataset": dataset,
        "items": [
            {"id": i.id, "question": i.question, "reference": i.answer, "type": i.question_type, "evidence": i.evidence}
            for i in items
        ],
        "retrieved": retrieved,
        "evidence_check": report.evidence.payload() if report.evidence else None,
    }
    record = EvalRunRecord(run_id, "run", time.time(), dataset, label or RETRIEVAL_LABEL, payload)
    scores = _scores(run_id, report)
    store.eval_runs.save(record, scores)
    return finish(record, scores)
