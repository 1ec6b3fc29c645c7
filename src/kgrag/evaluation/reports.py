"""`kgrag eval report RUN...`: markdown + JSON + PNG plots from stored runs.

Each metric table shows mean ± std over runs per question type, the micro (``All``) and macro
averages, and how many scores were unmeasured; the cost table sits right under it, and the headline
names the best pipeline *with* its context tokens and latency, so a better score bought with more
context is visible as such.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgrag.core.errors import KgragError
from kgrag.evaluation.aggregate import ALL, MACRO, Cell, best_pipeline, question_types
from kgrag.evaluation.plots import Point, grouped_bars, quality_vs_cost
from kgrag.evaluation.runner import COSTS

QUALITY_ORDER = ("evidence-recall", "context-relevance", "rouge-l", "answer-accuracy", "coverage", "faithfulness")


def fmt(cell: Cell | None, digits: int = 3) -> str:
    if not cell or cell.get("mean") is None:
        return "–"
    mean, std = float(cell["mean"] or 0), float(cell.get("std") or 0)
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def quality_metrics(summary: dict[str, Any]) -> list[str]:
    """Metric names in a stable, readable order (paper metrics first, judges after, costs excluded)."""
    names = {m for rows in summary.values() for m in rows if not m.startswith("cost.")}
    rank = {name: i for i, name in enumerate(QUALITY_ORDER)}
    return sorted(names, key=lambda m: (rank.get(m.split(":")[0], 99), m))


def headline_metric(summary: dict[str, Any]) -> str | None:
    metrics = quality_metrics(summary)
    return metrics[0] if metrics else None


def metric_table(summary: dict[str, Any], metric: str) -> list[str]:
    types = question_types(summary)
    columns = [*types, ALL, MACRO]
    lines = [
        "| pipeline | " + " | ".join(columns) + " | unmeasured |",
        "| --- | " + " | ".join("---:" for _ in columns) + " | ---: |",
    ]
    for pipeline, rows in summary.items():
        row = rows.get(metric)
        if row is None:
            continue
        cells = " | ".join(fmt(row.get(c)) for c in columns)
        lines.append(f"| {pipeline} | {cells} | {row[ALL]['unmeasured']} |")
    return lines


def cost_table(summary: dict[str, Any]) -> list[str]:
    heads = [c.removeprefix("cost.").replace("_", " ") for c in COSTS]
    lines = ["| pipeline | " + " | ".join(heads) + " |", "| --- | " + " | ".join("---:" for _ in COSTS) + " |"]
    for pipeline, rows in summary.items():
        lines.append(f"| {pipeline} | " + " | ".join(fmt(rows.get(c, {}).get(ALL), 1) for c in COSTS) + " |")
    return lines


def answer_line(summary: dict[str, Any], metric: str | None = None) -> str:
    """The product's question in one sentence: which pipeline paid off on this corpus, at what cost."""
    metric = metric or headline_metric(summary)
    best = best_pipeline(summary, metric) if metric else None
    if metric is None or best is None:
        return "No pipeline could be scored."
    rows = summary[best]
    return (
        f"Best on {metric} (macro over question types): **{best}** at {fmt(rows[metric][MACRO])}, "
        f"for {fmt(rows.get('cost.context_tokens', {}).get(ALL), 0)} context tokens, "
        f"{fmt(rows.get('cost.total_tokens', {}).get(ALL), 0)} LLM tokens and "
        f"{fmt(rows.get('cost.latency_ms', {}).get(ALL), 1)} ms per question."
    )


def render_run(payload: dict[str, Any], summary: dict[str, Any]) -> str:
    """One stored run as markdown: settings and judge disclosure, headline, metric and cost tables."""
    plan = payload.get("plan", {})
    judge = payload.get("judge") or {}
    lines = [
        f"# Evaluation run `{payload.get('id', '?')}`",
        "",
        f"Dataset `{payload.get('dataset', '?')}` ({payload.get('questions', '?')} questions"
        f"{', ' + payload['sample'] if payload.get('sample') else ''}); "
        f"pipelines {', '.join(plan.get('pipelines', []))}; "
        f"k = {plan.get('k')}; {plan.get('runs')} run(s), mean ± std over runs; metric mode `{plan.get('mode')}`.",
        f"Judge: {json.dumps(judge) if judge else 'none (LLM-free metrics only)'}.",
        f"Models: {json.dumps(payload.get('models', {}))}.",
        "",
        answer_line(summary),
        "",
        "## Cost per question (context = retrieved text handed to the generator)",
        "",
        *cost_table(summary),
    ]
    for metric in quality_metrics(summary):
        lines += ["", f"## {metric}", "", *metric_table(summary, metric)]
    return "\n".join(lines) + "\n"


def _points(summary: dict[str, Any], metric: str, cost: str) -> list[Point]:
    points: list[Point] = []
    for pipeline, rows in summary.items():
        quality, spend = rows.get(metric, {}).get(MACRO), rows.get(cost, {}).get(ALL)
        if quality and spend and quality.get("mean") is not None and spend.get("mean") is not None:
            points.append((pipeline, float(spend["mean"]), float(quality["mean"]), quality.get("std")))
    return points


def plot_run(summary: dict[str, Any], out_dir: Path, stem: str) -> list[Path]:
    """Per metric: quality vs context tokens and vs cost (LLM tokens, else latency); bars by type."""
    paths: list[Path] = []
    uses_llm = any((rows.get("cost.total_tokens", {}).get(ALL) or {}).get("mean") for rows in summary.values())
    cost_axis = ("cost.total_tokens", "LLM tokens per question") if uses_llm else ("cost.latency_ms", "latency ms")
    types = question_types(summary)
    for metric in quality_metrics(summary):
        safe = metric.replace(":", "_").replace(".", "_")
        path = out_dir / f"{stem}_{safe}_vs_cost.png"
        panels = [
            ("context tokens per question", _points(summary, metric, "cost.context_tokens")),
            (cost_axis[1], _points(summary, metric, cost_axis[0])),
        ]
        quality_vs_cost(panels, f"{metric} (macro mean ± std over runs)", f"{metric}: quality against cost", path)
        bars = out_dir / f"{stem}_{safe}_by_type.png"
        series = {
            p: [
                ((rows[metric].get(t) or {}).get("mean") or 0.0, (rows[metric].get(t) or {}).get("std") or 0.0)
                for t in [*types, MACRO]
            ]
            for p, rows in summary.items()
            if metric in rows
        }
        grouped_bars([*types, MACRO], series, metric, f"{metric} by question type (± std over runs)", bars)
        paths += [path, bars]
    return paths


def write_run_report(payload: dict[str, Any], summary: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    """``<id>.md``, ``<id>.json`` and the plots; :class:`KgragError` naming the path on failure."""
    stem = f"eval_{payload.get('id', 'run')}"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        md, js = out_dir / f"{stem}.md", out_dir / f"{stem}.json"
        md.write_text(render_run(payload, summary), encoding="utf-8")
        js.write_text(json.dumps({**payload, "summary": summary}, indent=2), encoding="utf-8")
        plots = plot_run(summary, out_dir, stem)
    except OSError as exc:
        raise KgragError(f"{exc.filename or out_dir}: cannot write the evaluation report ({exc.strerror})") from exc
    return {"markdown": md, "json": js, **{f"plot{i}": p for i, p in enumerate(plots)}}
