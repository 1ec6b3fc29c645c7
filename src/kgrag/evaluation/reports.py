"""`kgrag eval report RUN...`: markdown + JSON + PNG plots from stored runs.

Every number is shown with its uncertainty: a cell reads ``mean [95 % CI] n=questions`` (the interval is
over questions, :mod:`kgrag.evaluation.stats.intervals`), followed by ``sd`` over runs when there were
several; a column header gives the questions of its type and marks a type under the minimum stratum
size *small*. The header says what the spread over runs covers (generation, judging, both, or nothing).
Each metric gets a verdict (:mod:`kgrag.evaluation.stats.verdicts`) that names a best pipeline only when
Holm's procedure over its paired tests against every other pipeline rejects them all, and a table of
paired differences against the baseline. The cost table sits right under the headline, with prompt and
completion tokens apart and latency of the first (cold) run apart from the later (warm) ones, so a
better score bought with more context is visible as such.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import JsonValue

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalScore
from kgrag.evaluation.aggregate import ALL, MACRO, Cell, question_types
from kgrag.evaluation.evidence_check import EvidenceCheck
from kgrag.evaluation.generated_caveats import caveat_lines
from kgrag.evaluation.plots import Bar, Point, grouped_bars, quality_vs_cost
from kgrag.evaluation.retrieval_report import handed_over_lines
from kgrag.evaluation.runner import COSTS
from kgrag.evaluation.session import EvalRun
from kgrag.evaluation.stats.cells import DifferenceCell, StatsBlock, Summary, Verdict

QUALITY_ORDER = ("evidence-recall", "context-relevance", "rouge-l", "answer-accuracy", "coverage", "faithfulness")


def fmt(cell: Cell | None, digits: int = 3, spread: bool = True) -> str:
    """``mean [low, high] n=N`` plus ``sd S`` over runs when there were several; ``–`` when unmeasured."""
    mean = cell.get("mean") if cell else None
    if not cell or mean is None:
        return "–"
    text = f"{float(mean):.{digits}f}"
    ci = cell.get("ci95")
    text += f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else " [no CI]"
    text += f" n={cell.get('n', 0)}"
    std = cell.get("std")
    if spread and (cell.get("runs") or 0) > 1 and std is not None:
        text += f" sd {float(std):.{digits}f}"
    return text


def fmt_diff(cell: DifferenceCell | None) -> str:
    mean = cell.get("mean") if cell else None
    if not cell or mean is None:
        return "–"
    ci = cell.get("ci95")
    interval = f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else " [no CI]"
    return f"{float(mean):+.3f}{interval} n={cell.get('n', 0)}"


def quality_metrics(summary: Summary) -> list[str]:
    """Metric names in a stable, readable order (paper metrics first, judges after, costs excluded)."""
    names = {m for rows in summary.values() for m in rows if not m.startswith("cost.")}
    rank = {name: i for i, name in enumerate(QUALITY_ORDER)}
    return sorted(names, key=lambda m: (rank.get(m.split(":")[0], 99), m))


def headline_metric(summary: Summary) -> str | None:
    metrics = quality_metrics(summary)
    return metrics[0] if metrics else None


def column_heads(summary: Summary, metric: str, columns: list[str]) -> list[str]:
    """``Type (n=N)`` per column, ``, small`` added where the type is under the minimum stratum size."""
    heads = []
    for column in columns:
        cells = [rows[metric][column] for rows in summary.values() if column in rows.get(metric, {})]
        n = max((int(c.get("n") or 0) for c in cells), default=0)
        small = any(c.get("small") for c in cells)
        heads.append(f"{column} (n={n}{', small' if small else ''})")
    return heads


def metric_table(summary: Summary, metric: str, spread: bool = True) -> list[str]:
    columns = [*question_types(summary), ALL, MACRO]
    lines = [
        "| pipeline | " + " | ".join(column_heads(summary, metric, columns)) + " | unmeasured |",
        "| --- | " + " | ".join("---:" for _ in columns) + " | ---: |",
    ]
    for pipeline, rows in summary.items():
        row = rows.get(metric)
        if row is None:
            continue
        cells = " | ".join(fmt(row.get(c), spread=spread) for c in columns)
        lines.append(f"| {pipeline} | {cells} | {row[ALL]['unmeasured']} |")
    return lines


def paired_lines(stats: StatsBlock, metric: str) -> list[str]:
    rows = (stats.get("paired") or {}).get(metric) or {}
    if not rows:
        return []
    lines = [
        f"Paired difference against the baseline **{stats.get('baseline')}** (pipeline − baseline, same questions):",
        "",
        "| pipeline | All (question-weighted) | Macro (type-macro) |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {p} | {fmt_diff(cells.get(ALL))} | {fmt_diff(cells.get(MACRO))} |" for p, cells in rows.items()]
    return lines


def cost_table(summary: Summary) -> list[str]:
    heads = [c.removeprefix("cost.").replace("_", " ") for c in COSTS]
    lines = ["| pipeline | " + " | ".join(heads) + " |", "| --- | " + " | ".join("---:" for _ in COSTS) + " |"]
    for pipeline, rows in summary.items():
        cells = [fmt(rows.get(c, {}).get(ALL), 1, spread=False) for c in COSTS]
        lines.append(f"| {pipeline} | " + " | ".join(cells) + " |")
    return lines


def answer_line(run: EvalRun, metric: str | None = None) -> str:
    """The product's question in one sentence: which pipeline paid off on this corpus (only when the
    paired intervals say so), at what cost."""
    metric = metric or headline_metric(run.summary)
    if metric is None:
        return "No pipeline could be scored."
    verdicts: dict[str, dict[str, Verdict]] = run.stats.get("verdicts") or {}
    verdict = verdicts.get(metric, {}).get(MACRO)
    text = str((verdict["text"] if verdict else None) or f"No verdict on {metric}.")
    best = verdict.get("best") if verdict else None
    if best is None:
        return text
    rows = run.summary[best]
    return (
        f"{text} It hands over {fmt(rows.get('cost.context_tokens', {}).get(ALL), 0, False)} context tokens and "
        f"spends {fmt(rows.get('cost.total_tokens', {}).get(ALL), 0, False)} LLM tokens per question."
    )


def _obj(value: JsonValue) -> dict[str, JsonValue]:
    return value if isinstance(value, dict) else {}


def _header(payload: dict[str, JsonValue]) -> list[str]:
    """The settings lines of a stored run's payload (plain JSON; a field an older run lacks reads as unknown)."""
    plan, boot = _obj(payload.get("plan")), _obj(payload.get("bootstrap"))
    answers, judge = _obj(payload.get("answers")), _obj(payload.get("judge"))
    pipelines = plan.get("pipelines")
    sample = payload.get("sample")
    replayed = (
        f"; {answers.get('replayed_from_cache', 0)} of {answers.get('llm_answers')} LLM answers replayed from the cache"
        if answers.get("llm_answers")
        else ""
    )
    return [
        f"# Evaluation run `{payload.get('id', '?')}`",
        "",
        f"Dataset `{payload.get('dataset', '?')}` ({payload.get('questions', '?')} questions"
        f"{', ' + str(sample) if sample else ''}); "
        f"pipelines {', '.join(str(p) for p in pipelines) if isinstance(pipelines, list) else ''}; "
        f"baseline {plan.get('baseline') or '–'}; "
        f"k = {plan.get('k')}; {plan.get('runs')} run(s); metric mode `{plan.get('mode')}`{replayed}.",
        f"Cells: mean [95% CI] n = questions — {boot.get('method', 'a bootstrap over questions')}; each "
        "question's value is first averaged over runs; a small type weighs less in Macro and decides nothing.",
        f"sd = standard deviation over runs (shown when something varies); it covers: "
        f"{payload.get('variation') or 'not recorded for this run'}.",
        f"Judge: {json.dumps(judge) if judge else 'none (LLM-free metrics only)'}.",
        f"Models: {json.dumps(payload.get('models', {}))}.",
    ]


def _evidence_lines(payload: dict[str, object]) -> list[str]:
    """A stored retrieval evaluation's evidence check (:mod:`kgrag.evaluation.evidence_check`), as its report
    printed it; none for other runs."""
    stored = payload.get("threshold")
    threshold = float(stored) if isinstance(stored, int | float) else 0.0
    check = EvidenceCheck.from_payload(payload.get("evidence_check"), threshold)
    return check.lines() if check is not None else []


def render_run(run: EvalRun) -> str:
    """One stored run as markdown: settings and judge disclosure, verdict, cost table, then per metric its
    table, verdicts and paired differences against the baseline."""
    summary, stats = run.summary, run.stats
    varies = not str(run.record.payload.get("variation", "")).startswith("nothing varies")  # else sd is 0 by design
    lines = [
        *_header(run.record.payload),
        "",
        *caveat_lines(run.caveats),
        *_evidence_lines(run.record.payload),
        *handed_over_lines(run.record.payload.get("handed_over")),
        answer_line(run),
        "",
        "## Cost per question",
        "",
    ]
    lines += [
        "Context = retrieved text handed to the generator; prompt/completion = the answer call; total = every "
        "LLM call the pipeline made; latency cold = run 1, warm = runs 2..N; judge = every judge call.",
        "",
    ]
    lines += cost_table(summary)
    for metric in quality_metrics(summary):
        lines += ["", f"## {metric}", "", *metric_table(summary, metric, varies), ""]
        lines += unmeasured_lines(run.scores, metric)
        verdicts = (stats.get("verdicts") or {}).get(metric) or {}
        lines += [f"- {verdicts[c]['text']}" for c in (MACRO, ALL) if c in verdicts]
        paired = paired_lines(stats, metric)
        lines += ["", *paired] if paired else []
    return "\n".join(lines) + "\n"


UNMEASURED_REASONS = 3
"""How many distinct reasons for unmeasured scores a metric's section names (the most frequent)."""


def unmeasured_lines(scores: Sequence[EvalScore], metric: str) -> list[str]:
    """Why scores of ``metric`` are unmeasured, the most frequent reasons with their counts: a table that
    says ``–`` and ``unmeasured 4`` tells a reader nothing about a judge model that cannot do the job (a
    small one copying its worked example)."""
    own = [s for s in scores if s.metric == metric]
    reasons = Counter(" ".join(s.note.split())[:200] or "no reason recorded" for s in own if s.value is None)
    if not reasons:
        return []
    shown = "; ".join(f"{count} × {why}" for why, count in reasons.most_common(UNMEASURED_REASONS))
    more = len(reasons) - UNMEASURED_REASONS
    tail = f"; and {more} other reason{'s' if more != 1 else ''}" if more > 0 else ""
    return [f"- Unmeasured: {sum(reasons.values())} of {len(own)} scores: {shown}{tail}"]


def _points(summary: Summary, metric: str, cost: str) -> list[Point]:
    points: list[Point] = []
    for pipeline, rows in summary.items():
        quality, spend = rows.get(metric, {}).get(MACRO), rows.get(cost, {}).get(ALL)
        if quality and spend and quality.get("mean") is not None and spend.get("mean") is not None:
            ci = quality.get("ci95")
            points.append(
                Point(pipeline, float(spend["mean"] or 0), float(quality["mean"] or 0), (ci[0], ci[1]) if ci else None)
            )
    return points


def _bar(cell: Cell | None) -> Bar:
    ci = cell.get("ci95") if cell else None
    return float((cell.get("mean") if cell else None) or 0.0), (float(ci[0]), float(ci[1])) if ci else None


def _mean(rows: dict[str, dict[str, Cell]], metric: str, column: str) -> float | None:
    cell = rows.get(metric, {}).get(column)
    return cell.get("mean") if cell else None


def plot_run(summary: Summary, out_dir: Path, stem: str) -> list[Path]:
    """Per metric: quality vs context tokens and vs cost (LLM tokens, else warm latency); bars by type."""
    paths: list[Path] = []
    uses_llm = any(_mean(rows, "cost.total_tokens", ALL) for rows in summary.values())
    warm = any(_mean(rows, "cost.latency_warm_ms", ALL) for rows in summary.values())
    latency = ("cost.latency_warm_ms", "warm latency ms") if warm else ("cost.latency_cold_ms", "latency ms (one run)")
    cost_axis = ("cost.total_tokens", "LLM tokens per question") if uses_llm else latency
    types = question_types(summary)
    for metric in quality_metrics(summary):
        safe = metric.replace(":", "_").replace(".", "_")
        path = out_dir / f"{stem}_{safe}_vs_cost.png"
        panels = [
            ("context tokens per question", _points(summary, metric, "cost.context_tokens")),
            (cost_axis[1], _points(summary, metric, cost_axis[0])),
        ]
        quality_vs_cost(panels, f"{metric} (macro mean, 95% CI)", f"{metric}: quality against cost", path)
        bars = out_dir / f"{stem}_{safe}_by_type.png"
        series = {
            p: [_bar(rows[metric].get(t)) for t in [*types, MACRO]] for p, rows in summary.items() if metric in rows
        }
        grouped_bars([*types, MACRO], series, metric, f"{metric} by question type (95% CI over questions)", bars)
        paths += [path, bars]
    return paths


def write_run_report(run: EvalRun, out_dir: Path) -> dict[str, Path]:
    """``<id>.md``, ``<id>.json`` (the payload, ``summary`` with ``ci95`` per pipeline × metric × type, and
    ``paired``/``verdicts``) and the plots; :class:`KgragError` naming the path on failure."""
    payload = run.record.payload
    stem = f"eval_{payload.get('id', 'run')}"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        md, js = out_dir / f"{stem}.md", out_dir / f"{stem}.json"
        md.write_text(render_run(run), encoding="utf-8")
        js.write_text(json.dumps({**payload, "summary": run.summary, **run.stats}, indent=2), encoding="utf-8")
        plots = plot_run(run.summary, out_dir, stem)
    except OSError as exc:
        raise KgragError(f"{exc.filename or out_dir}: cannot write the evaluation report ({exc.strerror})") from exc
    return {"markdown": md, "json": js, **{f"plot{i}": p for i, p in enumerate(plots)}}
