"""Paired comparisons between pipelines and the verdict a report may print.

Every pipeline is compared with a baseline on the questions both measured: the per-question difference
(averaged over runs) gets a paired t interval (:func:`kgrag.evaluation.stats.intervals.paired`), whose
standard error counts two pseudo-differences so that a few differing questions cannot look certain. On a
metric and a column (``Macro`` or ``All``), the pipeline with the highest mean is the *leader*; it is
named *best* only when the paired t-tests of the leader against **every** other pipeline are all rejected
under Holm's family-wise control (:mod:`kgrag.evaluation.stats.family`), so the chance of naming a best
among equal pipelines stays at or below ``1 − level`` however many are compared. Otherwise the verdict
names the leading group: the pipelines at the top score (several when they share it exactly, and then
none is singled out) and every pipeline not significantly below; then each pipeline that is
significantly below, with its difference, interval and Holm-adjusted p. The comparisons that decide
nothing are counted, not listed, so the line stays readable with many pipelines; each is in the
verdict's ``against``. Question
types below ``min_stratum`` questions weigh less in ``Macro`` and are never given a verdict of their own.
Higher is better for every quality metric and judge score.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from kgrag.evaluation.stats.cells import DifferenceCell, PairedTable, StatsBlock, Tally, Verdict
from kgrag.evaluation.stats.family import adjusted, holm
from kgrag.evaluation.stats.intervals import (
    ALL,
    MACRO,
    Bootstrap,
    Estimate,
    Interval,
    QuestionValues,
    by_type,
    column_mean,
    estimates,
    is_unbounded,
    largest_difference,
    paired,
    score_range,
)

PerQuestion = dict[str, dict[str, QuestionValues]]  # pipeline → metric → question values


def default_baseline(pipelines: Sequence[str]) -> str | None:
    """The first pipeline named (``--pipelines dense,bm25,...`` makes dense, plain RAG, the baseline)."""
    return pipelines[0] if pipelines else None


def _cells(found: dict[str, Estimate], baseline: str) -> dict[str, DifferenceCell]:
    return {
        column: {"baseline": baseline, **estimate.as_cell(), "p": estimate.p_value()}
        for column, estimate in found.items()
    }


def paired_table(per_question: PerQuestion, baseline: str, settings: Bootstrap) -> PairedTable:
    """metric → pipeline → column → ``{baseline, mean (of the difference), ci95, n, p}`` for every
    pipeline other than ``baseline`` that shares the metric with it, in the metric's range
    (:func:`score_range`); a cost's on its own scale (:func:`is_unbounded`)."""
    base = per_question.get(baseline, {})
    table: PairedTable = {}
    for metric, reference in sorted(base.items()):
        bounds, unbounded = score_range(metric), is_unbounded(metric)
        rows = {
            pipeline: _cells(paired(metrics[metric], reference, settings, bounds, unbounded=unbounded), baseline)
            for pipeline, metrics in per_question.items()
            if pipeline != baseline and metric in metrics
        }
        if rows:
            table[metric] = rows
    return table


def record(values: Mapping[str, float], baseline: Mapping[str, float]) -> Tally:
    """Wins, losses and ties of ``values`` against ``baseline`` on the questions both measured."""
    shared = set(values) & set(baseline)
    wins = sum(values[q] > baseline[q] for q in shared)
    losses = sum(values[q] < baseline[q] for q in shared)
    return {"wins": wins, "losses": losses, "ties": len(shared) - wins - losses}


def fmt_ci(estimate: Estimate) -> str:
    if estimate.ci95 is None:
        return "no interval (fewer than 2 shared questions)"
    low, high = estimate.ci95
    return f"{estimate.mean:+.3f}, 95% CI [{low:+.3f}, {high:+.3f}], n = {estimate.n}"


def _holm(p: float | None) -> str:
    """The Holm-adjusted p after an interval: the interval is each pair's own (not adjusted for the other
    comparisons), so one that excludes 0 can still leave the difference undecided; the p says which."""
    return "" if p is None else f", Holm-adjusted p = {p:.3f}"


def robust_p(
    a: QuestionValues,
    b: QuestionValues,
    column: str,
    settings: Bootstrap,
    bounds: Interval | None = None,
    found: Mapping[str, Estimate] | None = None,
) -> float | None:
    """The p of ``a − b`` on ``column`` that a verdict uses. On ``Macro`` it is the larger of the p with
    every type and the p without the types under ``min_stratum`` questions (or, when no type reaches it,
    the p of ``All``), so a small type, even a single question, cannot make a difference significant on
    its own: its weight is small, but a pipeline pair that agrees everywhere else would otherwise turn
    that one question into a confident verdict. ``bounds``: the scores' range, as the paired table
    was given it, so the verdict tests the differences the table shows; ``found``: ``paired(a, b,
    settings, bounds)`` when the caller has it already."""
    found = found if found is not None else paired(a, b, settings, bounds)
    p = found[column].p_value() if column in found else None
    if column != MACRO or p is None:
        return p
    shared = sorted(set(a) & set(b))
    diffs = {q: (a[q][0], a[q][1] - b[q][1]) for q in shared}
    sizes = {t: len(v) for t, v in by_type(diffs).items()}
    if all(n >= settings.min_stratum for n in sizes.values()):
        return p
    big = {q: v for q, v in diffs.items() if sizes[v[0]] >= settings.min_stratum}
    largest = largest_difference(a, b, bounds)
    check = estimates(big, settings, largest=largest).get(MACRO) if big else found.get(ALL)
    other = check.p_value() if check is not None else None
    return None if other is None else max(p, other)


def leader_tests(
    scored: Mapping[str, QuestionValues],
    leader: str,
    column: str,
    settings: Bootstrap,
    bounds: Interval | None = None,
) -> tuple[dict[str, Estimate], dict[str, float | None], dict[str, bool]]:
    """The ``leader``'s paired difference on ``column`` to every other pipeline, the p of each
    (:func:`robust_p`) and which of those Holm rejects (a rejection counts only for a positive
    difference)."""
    found = {
        other: paired(scored[leader], values, settings, bounds)
        for other, values in sorted(scored.items())
        if other != leader
    }
    against = {other: pairs.get(column, Estimate(None, None, 0)) for other, pairs in found.items()}
    p_values = {
        other: robust_p(scored[leader], scored[other], column, settings, bounds, found[other]) for other in against
    }
    rejected = holm(p_values, settings.alpha)
    return against, p_values, {p: rejected[p] and (e.mean or 0) > 0 for p, e in against.items()}


def top_group(means: Mapping[str, float]) -> list[str]:
    """The pipelines sharing the highest mean, by name (a tie up to rounding in the last digits)."""
    top = max(means.values())
    return sorted(p for p, m in means.items() if math.isclose(m, top, rel_tol=1e-12, abs_tol=1e-12))


def _group_text(top: list[str], tied: list[str], score: float) -> str:
    """The leading group's names: the top score's holders first (with the score when several share it),
    then the pipelines not significantly below them."""
    shared = f"{', '.join(top)} (tied at {score:.3f})" if len(top) > 1 else top[0]
    return ", ".join([shared, *tied])


def _comparison(top: list[str], other: str, found: Estimate, holm_p: float | None) -> str:
    """``top − other: difference, interval, n, Holm-adjusted p``; the top pipeline is named only when it
    is alone at the top or ``other`` shares the top score (the tests are taken from the first by name)."""
    name = top[0] if len(top) == 1 or other in top else "top"
    return f"{name} − {other}: {fmt_ci(found)}{_holm(holm_p)}"


def _undecided_text(
    top: list[str],
    score: float,
    against: Mapping[str, Estimate],
    ahead: Mapping[str, bool],
    holm_p: Mapping[str, float | None],
) -> tuple[str, list[str]]:
    """The verdict when no best is named: the leading group (the top pipelines and every pipeline not
    significantly below them, closest to the top first), then each pipeline significantly below it with
    its difference, interval and Holm-adjusted p, closest first; the comparisons that are not significant
    are counted (each is in ``against``), or given in full when there is only one. Returns (text after
    the family, group)."""
    closest_first = sorted(against, key=lambda p: (against[p].mean or 0.0, p))
    below = [p for p in closest_first if ahead[p]]
    rest = [p for p in closest_first if not ahead[p]]
    group = [*top, *(p for p in rest if p not in top)]
    names = _group_text(top, group[len(top) :], score)
    text = f"{'between' if len(group) == 2 else 'among'} {names}"
    if len(rest) == 1:
        text += f". {_comparison(top, rest[0], against[rest[0]], holm_p[rest[0]])}."
    else:
        text += f" ({len(rest)} comparisons, each in the JSON)."
    if below:
        details = "; ".join(f"{p} ({_comparison(top, p, against[p], holm_p[p])})" for p in below)
        text += f" Significantly below them: {details}."
    return text, group


def verdict(
    per_question: PerQuestion,
    metric: str,
    settings: Bootstrap,
    column: str = MACRO,
    bounds: Interval | None = None,
) -> Verdict:
    """``{"metric", "column", "best" (a pipeline or None), "text", "top", "leading", "against":
    {pipeline: difference}}``; ``bounds``: the scores' range when known (recall: [0, 1]), as the paired
    table had it. ``top``: the pipelines sharing the highest mean (several: none is singled out);
    ``leading``: those and every pipeline not significantly below them; ``leader``: the one the paired
    tests are taken from (the first of ``top`` by name)."""
    scored = {p: rows[metric] for p, rows in per_question.items() if rows.get(metric)}
    if not scored:
        return {"metric": metric, "column": column, "best": None, "text": f"No pipeline measured {metric}."}
    if len(scored) == 1:
        only = next(iter(scored))
        return {"metric": metric, "column": column, "best": None, "text": f"Only {only} measured {metric}."}
    means = {p: column_mean(values, column, settings.min_stratum) for p, values in scored.items()}
    top = top_group(means)
    leader = top[0]  # the tests are taken from the first of the top pipelines by name
    against, p_values, ahead = leader_tests(scored, leader, column, settings, bounds)
    holm_p = adjusted(p_values)
    label = "type-macro mean" if column == MACRO else "question-weighted mean"
    family = f"Holm over {len(against)} paired test{'s' if len(against) > 1 else ''}"
    best: str | None = None
    if all(ahead.values()):
        best, leading = leader, [leader]
        details = _best_details(against, holm_p)
        text = f"Best on {metric} ({label}): **{leader}**, ahead of every other pipeline ({family}; {details})."
    else:
        rest, leading = _undecided_text(top, means[leader], against, ahead, holm_p)
        text = f"No significant difference on {metric} ({label}, {family}) {rest}"
    return {
        "metric": metric,
        "column": column,
        "leader": leader,
        "top": top,
        "leading": leading,
        "family": {"rule": "holm", "alpha": settings.alpha, "comparisons": len(against)},
        "against": {p: {**e.as_cell(), "p": p_values[p], "p_holm": holm_p[p]} for p, e in against.items()},
        "best": best,
        "text": text,
    }


SPELLED_OUT = 2
"""Comparisons a "Best" line gives in full; with more, it gives the closest (the largest Holm-adjusted p) and counts
the others, which stay in the JSON."""


def _best_details(against: Mapping[str, Estimate], holm_p: Mapping[str, float | None]) -> str:
    """The comparisons behind a "Best": all of them up to :data:`SPELLED_OUT`, else the closest and a count."""
    if len(against) <= SPELLED_OUT:
        return "; ".join(f"vs {p}: {fmt_ci(e)}{_holm(holm_p[p])}" for p, e in against.items())
    closest = max(against, key=lambda p: (holm_p[p] or 0.0, -(against[p].mean or 0.0)))
    rest = len(against) - 1
    return (
        f"closest, vs {closest}: {fmt_ci(against[closest])}{_holm(holm_p[closest])}; "
        f"the other {rest} comparison{'s' if rest > 1 else ''} further apart, each in the JSON"
    )


def compare_all(
    per_question: PerQuestion, metrics: Sequence[str], baseline: str | None, settings: Bootstrap
) -> StatsBlock:
    """The statistics block of a report: settings, baseline, paired table and one verdict per metric on
    both the type-macro and the question-weighted mean, each in its score's range (:func:`score_range`)."""
    verdicts = {
        m: {col: verdict(per_question, m, settings, col, score_range(m)) for col in (MACRO, ALL)} for m in metrics
    }
    return {
        "bootstrap": settings.describe(),
        "baseline": baseline,
        "paired": paired_table(per_question, baseline, settings) if baseline else {},
        "verdicts": verdicts,
    }


__all__ = ["ALL", "MACRO", "PerQuestion", "compare_all", "default_baseline", "paired_table", "record", "verdict"]
