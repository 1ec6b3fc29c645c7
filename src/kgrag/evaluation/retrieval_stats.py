"""The statistics of ``kgrag eval retrieval``: per pipeline and question type the mean evidence recall
with its 95 % interval and n, the paired difference against a baseline per type and overall with wins /
losses / ties, and the same verdict rule as ``kgrag eval run`` (:mod:`kgrag.evaluation.stats`).

A type below ``min_stratum`` questions is marked *(small)*: it is shown, weighs less in the type-macro
mean and never decides a verdict on its own.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Literal, TypedDict

from kgrag.core.errors import KgragError
from kgrag.evaluation.stats.cells import BootstrapSettings, DifferenceCell, IntervalCell, Tally, Verdict
from kgrag.evaluation.stats.intervals import ALL, MACRO, SCORE_RANGE, Bootstrap, QuestionValues, estimates, paired
from kgrag.evaluation.stats.verdicts import PerQuestion, record, verdict

if TYPE_CHECKING:
    from kgrag.evaluation.retrieval_eval import RetrievalEvalReport

Measure = Literal["recall", "chunk_recall"]
MEASURES: tuple[Measure, Measure] = ("recall", "chunk_recall")


class MeasureBlock(TypedDict):
    """One measure: pipeline → column → interval, pipeline → column → paired difference against the
    baseline (with wins/losses/ties), and column → verdict."""

    estimates: dict[str, dict[str, IntervalCell]]
    paired: dict[str, dict[str, DifferenceCell]]
    verdicts: dict[str, Verdict]


class RetrievalStatistics(TypedDict):
    """The ``statistics`` of a retrieval evaluation's report."""

    settings: BootstrapSettings
    baseline: str
    recall: MeasureBlock
    chunk_recall: MeasureBlock


def per_question(report: RetrievalEvalReport) -> PerQuestion:
    """pipeline → measure → question id → (type, value), questions without evidence left out."""
    out: dict[str, dict[str, QuestionValues]] = defaultdict(lambda: {m: {} for m in MEASURES})
    for o in report.outcomes:
        for measure in MEASURES:
            value = getattr(o, measure)
            if value is not None:
                out[o.pipeline][measure][o.id] = (o.question_type, float(value))
    return dict(out)


def pick_baseline(report: RetrievalEvalReport, baseline: str | None) -> str:
    """``baseline`` when it is one of the report's pipelines, else the first named."""
    if baseline is None:
        return report.pipelines[0]
    if baseline not in report.pipelines:
        raise KgragError(f"--baseline {baseline!r} is not among --pipelines ({', '.join(report.pipelines)})")
    return baseline


def _paired_rows(
    values: PerQuestion, measure: str, baseline: str, settings: Bootstrap
) -> dict[str, dict[str, DifferenceCell]]:
    reference = values.get(baseline, {}).get(measure, {})
    rows: dict[str, dict[str, DifferenceCell]] = {}
    for pipeline, measures in values.items():
        if pipeline == baseline:
            continue
        found = paired(measures[measure], reference, settings, SCORE_RANGE)
        cells: dict[str, DifferenceCell] = {column: {**e.as_cell(), "p": e.p_value()} for column, e in found.items()}
        shared = set(measures[measure]) & set(reference)
        by_type: dict[str, set[str]] = defaultdict(set)
        for q in shared:
            by_type[reference[q][0]].add(q)
        for column, ids in [*by_type.items(), (ALL, shared)]:
            mine = {q: measures[measure][q][1] for q in ids}
            cells[column]["record"] = record(mine, {q: reference[q][1] for q in ids})
        rows[pipeline] = cells
    return rows


def _block(values: PerQuestion, measure: Measure, baseline: str, settings: Bootstrap) -> MeasureBlock:
    return {
        "estimates": {
            p: {c: e.as_cell() for c, e in estimates(m[measure], settings, SCORE_RANGE).items()}
            for p, m in values.items()
        },
        "paired": _paired_rows(values, measure, baseline, settings),
        "verdicts": {column: verdict(values, measure, settings, column, SCORE_RANGE) for column in (MACRO, ALL)},
    }


def retrieval_statistics(report: RetrievalEvalReport, baseline: str | None, settings: Bootstrap) -> RetrievalStatistics:
    """``{"settings", "baseline", measure: {"estimates", "paired", "verdicts"}}`` for both measures."""
    chosen = pick_baseline(report, baseline)
    values = per_question(report)
    return {
        "settings": settings.describe(),
        "baseline": chosen,
        "recall": _block(values, "recall", chosen, settings),
        "chunk_recall": _block(values, "chunk_recall", chosen, settings),
    }


def _cell(cell: IntervalCell | None, signed: bool = False) -> str:
    mean = cell.get("mean") if cell else None
    if not cell or mean is None:
        return "–"
    fmt = "{:+.3f}" if signed else "{:.3f}"
    text = fmt.format(mean)
    ci = cell.get("ci95")
    if ci:
        low, high = ci
        text += " [" + fmt.format(low) + ", " + fmt.format(high) + "]"
    return text


def column_head(column: str, n: int, small: bool) -> str:
    """A table's column head: ``Fact Retrieval (n=15)``, ``Contextual Summarize (n=5, small)``; every
    table of the report heads its columns this way."""
    return f"{column} (n={n}{', small' if small else ''})"


def small_columns(block: MeasureBlock) -> set[str]:
    """The columns marked *small* in ``block``'s estimates (types under ``min_stratum`` questions)."""
    return _columns(block)[2]


def _columns(block: MeasureBlock) -> tuple[list[str], dict[str, int], set[str]]:
    sizes: dict[str, int] = {}
    small: set[str] = set()
    for row in block["estimates"].values():
        for column, cell in row.items():
            sizes[column] = max(sizes.get(column, 0), cell["n"])
            if cell.get("small"):
                small.add(column)
    types = sorted(c for c in sizes if c not in (ALL, MACRO))
    return [*types, *(c for c in (ALL, MACRO) if c in sizes)], sizes, small


def render_statistics(stats: RetrievalStatistics, measure: Measure, pipelines: list[str]) -> list[str]:
    """Markdown: the interval table, the paired-difference table and the verdict lines of ``measure``."""
    block = stats[measure]
    columns, sizes, small = _columns(block)
    heads = [column_head(c, sizes[c], c in small) for c in columns]
    lines = [
        "Mean [95% CI] per question type; *small* types (under "
        f"{stats['settings']['min_stratum']} questions) weigh less in Macro and decide nothing alone.",
        "",
        "| pipeline | " + " | ".join(heads) + " |",
        "| --- | " + " | ".join("---:" for _ in columns) + " |",
    ]
    for pipeline in pipelines:
        row = block["estimates"].get(pipeline, {})
        lines.append(f"| {pipeline} | " + " | ".join(_cell(row.get(c)) for c in columns) + " |")
    baseline = stats["baseline"]
    lines += [
        "",
        f"Paired difference against the baseline **{baseline}** (pipeline − baseline, same questions), "
        "wins/losses/ties on All:",
        "",
        "| pipeline | " + " | ".join(heads) + " | W/L/T |",
        "| --- | " + " | ".join("---:" for _ in columns) + " | ---: |",
    ]
    for pipeline, cells in block["paired"].items():
        overall = cells.get(ALL)
        tally: Tally = (overall.get("record") if overall else None) or {"wins": 0, "losses": 0, "ties": 0}
        wlt = f"{tally['wins']}/{tally['losses']}/{tally['ties']}"
        lines.append(f"| {pipeline} | " + " | ".join(_cell(cells.get(c), True) for c in columns) + f" | {wlt} |")
    verdicts = block.get("verdicts", {})
    lines += ["", *(f"- Verdict: {verdicts[c]['text']}" for c in (MACRO, ALL) if c in verdicts)]
    return lines
