"""The report of `kgrag eval retrieval`: ``retrieval_eval.json`` (every question's numbers, for
re-analysis), ``retrieval_eval.md`` (the tables people read, also printed) and ``retrieval_eval.png``
(recall with its 95 % interval against context tokens and latency, one marker per pipeline).

The title and tables say what is compared: recall at one context budget, which the passage pipelines
fill with up to k passages and the graph pipelines with passages and graph descriptions, so the items
each pipeline handed over (mean and range per question) stand beside its recall.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict

from kgrag.core.errors import KgragError
from kgrag.evaluation.evidence_check import EvidenceCheckPayload
from kgrag.evaluation.generated_caveats import caveat_lines
from kgrag.evaluation.plots import Point, Row, forest_and_cost, save_figure
from kgrag.evaluation.retrieval_eval import Handed, OutcomeRow, RetrievalEvalReport
from kgrag.evaluation.retrieval_stats import (
    Measure,
    RetrievalStatistics,
    column_head,
    render_statistics,
    small_columns,
)
from kgrag.evaluation.stats.intervals import ALL


class RetrievalReportPayload(TypedDict):
    """``retrieval_eval.json``: the tables, the costs, the statistics and every outcome.
    ``context_budget`` is each pipeline's budget in tokens, ``items_handed_over`` and
    ``passages_handed_over`` the ``mean``, ``min`` and ``max`` per question of what it handed over."""

    dataset: str
    k: int
    threshold: float
    context_budget: dict[str, int]
    summary: dict[str, dict[str, float]]
    summary_chunks_only: dict[str, dict[str, float]]
    mean_context_tokens: dict[str, float]
    items_handed_over: dict[str, dict[str, float]]
    passages_handed_over: dict[str, dict[str, float]]
    latency_ms: dict[str, dict[str, float]]
    query_embedding_ms: dict[str, float]
    counts: dict[str, int]
    caveats: list[str]
    evidence_check: EvidenceCheckPayload | None
    statistics: RetrievalStatistics
    outcomes: list[OutcomeRow]


def budget_phrase(report: RetrievalEvalReport) -> str:
    """``a 1,000-token context budget``, or ``each pipeline's context budget`` when they differ or are
    not known."""
    budgets = set(report.budgets.values())
    return f"a {budgets.pop():,}-token context budget" if len(budgets) == 1 else "each pipeline's context budget"


def _what_is_compared(report: RetrievalEvalReport) -> str:
    """The paragraph under the title: what one recall figure rests on."""
    budgets = set(report.budgets.values())
    if len(budgets) > 1:
        each = ", ".join(f"{p} {n:,}" for p, n in report.budgets.items())
        budget = f"its own context budget (tokens: {each})"
    else:
        budget = f"the same context budget of {budgets.pop():,} tokens" if budgets else "its context budget"
    return (
        f"Every pipeline fills {budget}: a passage pipeline with up to k = {report.k} passages, a graph "
        "pipeline with passages plus entity, relation and path descriptions, so it hands over more, shorter "
        "items (the items column: mean and min–max per question). Recall counts everything a pipeline "
        "hands over."
    )


def _spread(cell: dict[str, float] | None) -> str:
    """``8.8 (5–18)``: the mean and range of what a pipeline handed over per question."""
    if not cell:
        return "–"
    return f"{cell['mean']:.1f} ({cell['min']:.0f}–{cell['max']:.0f})"


def handed_over_lines(stored: object) -> list[str]:
    """A stored retrieval run's ``handed_over`` payload (:mod:`kgrag.evaluation.service.stored_retrieval`)
    as a table with the figures the printed report gives: items and passages per question (mean and
    range), mean context tokens and latency percentiles; none for other runs."""
    if not isinstance(stored, dict) or not isinstance(stored.get("items"), dict):
        return []
    items, passages = stored["items"], stored.get("passages") or {}
    tokens, latency = stored.get("context_tokens") or {}, stored.get("latency_ms") or {}
    budgets = stored.get("context_budget") or {}
    lines = [
        "## What each pipeline handed over per question",
        "",
        "| pipeline | context budget | items | passages | context tokens | p50 ms | p95 ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for pipeline, cell in items.items():
        lat = latency.get(pipeline) or {"p50": 0.0, "p95": 0.0}
        budget = f"{budgets[pipeline]:,}" if pipeline in budgets else "–"
        lines.append(
            f"| {pipeline} | {budget} | {_spread(cell)} | {_spread(passages.get(pipeline))} | "
            f"{float(tokens.get(pipeline, 0)):.0f} | {float(lat['p50']):.1f} | {float(lat['p95']):.1f} |"
        )
    return [*lines, ""]


def _recall_table(report: RetrievalEvalReport, measure: Measure, stats: RetrievalStatistics) -> list[str]:
    """The mean recall per type, then what was handed over (items with the costs, or passages)."""
    table = report.table(measure)
    types = [*sorted({t for row in table.values() for t in row if t != ALL}), ALL]
    counts, small = report.counts(), small_columns(stats[measure])
    with_costs = measure == "recall"
    handed: Handed = "items" if with_costs else "passages"
    spread = report.handed_over(handed)
    extra = " | context tokens | p50 ms | p95 ms |" if with_costs else " |"
    lines = [
        "| pipeline | "
        + " | ".join(column_head(t, counts.get(t, 0), t in small) for t in types)
        + f" | {handed}{extra}",
        "| --- | "
        + " | ".join("---:" for _ in types)
        + " | ---:"
        + (" | ---: | ---: | ---: |" if with_costs else " |"),
    ]
    latency, tokens = report.latency(), report.mean_context_tokens()
    for pipeline in report.pipelines:
        row = table.get(pipeline, {})
        cells = " | ".join(f"{row[t]:.3f}" if t in row else "–" for t in types)
        lat = latency.get(pipeline, {"p50": 0.0, "p95": 0.0})
        costs = f" | {tokens.get(pipeline, 0):.0f} | {lat['p50']:.1f} | {lat['p95']:.1f} |" if with_costs else " |"
        lines.append(f"| {pipeline} | {cells} | {_spread(spread.get(pipeline))}{costs}")
    return lines


def _latency_note(report: RetrievalEvalReport) -> str:
    """What the ms columns time, and the question embeddings timed apart from them."""
    note = "p50/p95 ms: wall time of each pipeline's retrieval, in turn first on every question."
    made = report.embedding_latency()
    if made:
        note += (
            f" The question's embedding, which every pipeline reads, is made once before them and timed apart:"
            f" p50 {made['p50']:.1f} ms, p95 {made['p95']:.1f} ms."
        )
    return note


def render_markdown(
    report: RetrievalEvalReport,
    dataset: str,
    stats: RetrievalStatistics | None = None,
    caveats: list[str] | None = None,
) -> str:
    """The report as markdown: what is compared, the caveats on its questions, the two recall tables with
    what was handed over and its costs, then for each measure its intervals, paired differences against
    the baseline and verdicts (``stats`` and ``caveats`` worked out here unless the caller has them)."""
    stats = stats or report.statistics()
    caveats = report.caveats() if caveats is None else caveats
    lines = [
        f"# Retrieval evaluation: evidence recall at {budget_phrase(report)}",
        "",
        _what_is_compared(report),
        "",
        f"Dataset: `{dataset}`. An evidence sentence is recalled when ≥ {report.threshold:.0%} of its "
        "content words occur in one retrieved item.",
        "",
        *caveat_lines(caveats),
        *(report.evidence.lines() if report.evidence else []),
        "## All context the generator sees (passages + entity/relation/path/report texts)",
        "",
        *_recall_table(report, "recall", stats),
        "",
        _latency_note(report),
        "",
        f"## Retrieved passages only (up to {report.k} per pipeline, with excerpts where room was left)",
        "",
        *_recall_table(report, "chunk_recall", stats),
        "",
        "## Intervals, paired differences and verdict: all context",
        "",
        *render_statistics(stats, "recall", report.pipelines),
        "",
        "## Intervals, paired differences and verdict: passages only",
        "",
        *render_statistics(stats, "chunk_recall", report.pipelines),
    ]
    return "\n".join(lines) + "\n"


def _payload(
    report: RetrievalEvalReport, dataset: str, stats: RetrievalStatistics, caveats: list[str]
) -> RetrievalReportPayload:
    return {
        "dataset": dataset,
        "k": report.k,
        "threshold": report.threshold,
        "context_budget": dict(report.budgets),
        "summary": report.table(),
        "summary_chunks_only": report.table("chunk_recall"),
        "mean_context_tokens": report.mean_context_tokens(),
        "items_handed_over": report.handed_over("items"),
        "passages_handed_over": report.handed_over("passages"),
        "latency_ms": report.latency(),
        "query_embedding_ms": report.embedding_latency(),
        "counts": report.counts(),
        "caveats": caveats,
        "evidence_check": report.evidence.payload() if report.evidence else None,
        "statistics": stats,
        "outcomes": [o.row() for o in report.outcomes],
    }


def write_report(report: RetrievalEvalReport, out_dir: Path, dataset: str) -> dict[str, Path]:
    """Write JSON, markdown and the plot; returns the paths written (:class:`KgragError` naming the
    path when the directory or a file cannot be written)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KgragError(f"{out_dir}: cannot create the report directory ({exc.strerror})") from exc
    paths = {
        "json": out_dir / "retrieval_eval.json",
        "markdown": out_dir / "retrieval_eval.md",
        "plot": out_dir / "retrieval_eval.png",
    }
    stats, caveats = report.statistics(), report.caveats()
    try:
        paths["json"].write_text(json.dumps(_payload(report, dataset, stats, caveats), indent=2), encoding="utf-8")
        paths["markdown"].write_text(render_markdown(report, dataset, stats, caveats), encoding="utf-8")
        plot(report, stats, paths["plot"])
    except OSError as exc:
        raise KgragError(f"{exc.filename or out_dir}: cannot write the evaluation report ({exc.strerror})") from exc
    return paths


def _interval(stats: RetrievalStatistics, measure: Measure, pipeline: str) -> tuple[float, float] | None:
    """The 95 % interval of ``pipeline``'s All mean of ``measure`` (None when there is none)."""
    cell = stats[measure]["estimates"].get(pipeline, {}).get(ALL)
    ci = cell.get("ci95") if cell else None
    return (float(ci[0]), float(ci[1])) if ci else None


def _rows(report: RetrievalEvalReport, stats: RetrievalStatistics) -> list[Row]:
    """Each pipeline's forest row: all-context recall (filled), passages-only recall (open) when it differs,
    labelled with the tokens and items the pipeline handed over on average; none for a pipeline without a
    recall."""
    everything, passages_only = report.table(), report.table("chunk_recall")
    tokens, items = report.mean_context_tokens(), report.handed_over("items")
    rows = []
    for pipeline in report.pipelines:
        recall = everything.get(pipeline, {}).get(ALL)
        if recall is None:
            continue
        estimates = [Point(pipeline, 0.0, recall, _interval(stats, "recall", pipeline))]
        passages = passages_only.get(pipeline, {}).get(ALL)
        if passages is not None and passages != recall:
            estimates.append(Point(pipeline, 0.0, passages, _interval(stats, "chunk_recall", pipeline), True))
        label = (
            f"{pipeline}\n{tokens.get(pipeline, 0.0):.0f} tokens, {items.get(pipeline, {}).get('mean', 0.0):.1f} items"
        )
        rows.append(Row(pipeline, label, estimates))
    return rows


def figure(report: RetrievalEvalReport, stats: RetrievalStatistics) -> Any:
    """Recall with its All interval, never recall alone. Left: each pipeline on a row of its own,
    all-context recall (filled marker) and passages-only recall (open marker, where it differs), the row
    labelled with the context tokens and items it handed over (the pipelines fill one budget, so a
    scatter against tokens would stack them on one spot); right: all-context recall against latency, the
    cost that does differ. One colour and marker per pipeline in both panels and the legend."""
    rows = _rows(report, stats)
    latency = report.latency()
    points = [
        Point(row.name, latency.get(row.name, {}).get("p50", 0.0), row.estimates[0].y, row.estimates[0].ci)
        for row in rows
    ]
    return forest_and_cost(
        rows,
        ("query latency p50 (ms)", points),
        "evidence recall, all question types (95% CI)",
        f"Evidence recall at {budget_phrase(report)}, and against query latency (further right = slower)",
        variants=("all context", "passages only, where it differs"),
    )


def plot(report: RetrievalEvalReport, stats: RetrievalStatistics, path: Path) -> None:
    """Write :func:`figure` as ``path``."""
    save_figure(figure(report, stats), path)
