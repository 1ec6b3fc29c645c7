"""Paired comparisons between pipelines and the verdict a report may print.

Every pipeline is compared with a baseline on the questions both measured: the per-question difference
(averaged over runs) gets a paired bootstrap interval (:func:`kgrag.evaluation.intervals.paired`). A
pipeline is named *best* on a metric only when its paired difference to **every** other pipeline has an
interval wholly above 0 (an intersection–union test, berger-1982: it keeps the 95 % level without a
multiplicity correction). Otherwise the verdict says which pipelines are not distinguishable from the
leader, with the interval that says so. Higher is better for every quality metric and judge score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgrag.evaluation.aggregate import QuestionValues
from kgrag.evaluation.intervals import ALL, MACRO, Bootstrap, Estimate, column_mean, excludes_zero, paired

PerQuestion = dict[str, dict[str, QuestionValues]]  # pipeline → metric → question values


def default_baseline(pipelines: Sequence[str]) -> str | None:
    """The first pipeline named (``--pipelines dense,bm25,...`` makes dense, plain RAG, the baseline)."""
    return pipelines[0] if pipelines else None


def _cells(found: dict[str, Estimate], baseline: str) -> dict[str, Any]:
    return {column: {"baseline": baseline, **estimate.as_cell()} for column, estimate in found.items()}


def paired_table(per_question: PerQuestion, baseline: str, settings: Bootstrap) -> dict[str, Any]:
    """metric → pipeline → column → ``{baseline, mean (of the difference), ci95, n}`` for every pipeline
    other than ``baseline`` that shares the metric with it."""
    base = per_question.get(baseline, {})
    table: dict[str, dict[str, Any]] = {}
    for metric, reference in sorted(base.items()):
        rows = {
            pipeline: _cells(paired(metrics[metric], reference, settings), baseline)
            for pipeline, metrics in per_question.items()
            if pipeline != baseline and metric in metrics
        }
        if rows:
            table[metric] = rows
    return table


def _fmt_ci(estimate: Estimate) -> str:
    if estimate.ci95 is None:
        return "no interval (fewer than 2 shared questions)"
    low, high = estimate.ci95
    return f"{estimate.mean:+.3f}, 95% CI [{low:+.3f}, {high:+.3f}], n = {estimate.n}"


def verdict(per_question: PerQuestion, metric: str, settings: Bootstrap, column: str = MACRO) -> dict[str, Any]:
    """``{"metric", "column", "best" (a pipeline or None), "text", "against": {pipeline: difference}}``."""
    scored = {p: rows[metric] for p, rows in per_question.items() if rows.get(metric)}
    if not scored:
        return {"metric": metric, "column": column, "best": None, "text": f"No pipeline measured {metric}."}
    means = {p: column_mean(values, column) for p, values in scored.items()}
    leader = max(sorted(means), key=lambda p: means[p])
    if len(scored) == 1:
        return {"metric": metric, "column": column, "best": None, "text": f"Only {leader} measured {metric}."}
    against = {
        other: paired(scored[leader], values, settings).get(column, Estimate(None, None, 0))
        for other, values in sorted(scored.items())
        if other != leader
    }
    lower = {p: e for p, e in against.items() if not (excludes_zero(e.ci95) and (e.mean or 0) > 0)}
    out: dict[str, Any] = {"metric": metric, "column": column, "against": {p: e.as_cell() for p, e in against.items()}}
    label = "type-macro mean" if column == MACRO else "question-weighted mean"
    if not lower:
        out["best"] = leader
        details = "; ".join(f"vs {p}: {_fmt_ci(e)}" for p, e in against.items())
        out["text"] = f"Best on {metric} ({label}): **{leader}**, ahead of every other pipeline ({details})."
        return out
    out["best"] = None
    details = "; ".join(f"{leader} − {p}: {_fmt_ci(e)}" for p, e in lower.items())
    names = ", ".join([leader, *lower])
    out["text"] = f"No significant difference on {metric} ({label}) between {names} ({details})."
    return out


def compare_all(
    per_question: PerQuestion, metrics: Sequence[str], baseline: str | None, settings: Bootstrap
) -> dict[str, Any]:
    """The statistics block of a report: bootstrap settings, baseline, paired table and one verdict per
    metric on both the type-macro and the question-weighted mean."""
    return {
        "bootstrap": settings.describe(),
        "baseline": baseline,
        "paired": paired_table(per_question, baseline, settings) if baseline else {},
        "verdicts": {m: {col: verdict(per_question, m, settings, col) for col in (MACRO, ALL)} for m in metrics},
    }
