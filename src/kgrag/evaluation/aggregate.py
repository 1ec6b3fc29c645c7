"""From per-question scores to the tables people read: per pipeline × question type, the mean with a 95 %
bootstrap interval over questions and the number of questions behind it, plus the spread over repeated
runs, with question-weighted (``All``) and type-macro (``Macro``) columns and the count of unmeasured
scores kept apart from the mean.

Two kinds of uncertainty, reported apart because they answer different questions:

* ``ci95`` (:mod:`kgrag.evaluation.intervals`): over *questions*: would another draw of questions of the
  same kind give the same mean? Each question's value is first averaged over the runs.
* ``std``: over *runs* (lundberg-2026 reports mean ± std over 5 runs): the standard deviation of the
  per-run means, i.e. what regenerating answers and re-judging changes. It is 0 when nothing varies.

Unmeasured scores (``None``) are excluded from the means and counted, never averaged in as zeros.
Latency is also split into ``cost.latency_cold_ms`` (the first run, when models load and caches are
cold) and ``cost.latency_warm_ms`` (runs 2..N), so one slow first run cannot hide in a mixed mean.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from kgrag.core.eval_records import EvalScore
from kgrag.evaluation.intervals import ALL, MACRO, MIN_STRATUM, Bootstrap, estimates
from kgrag.evaluation.stats.cells import IntervalCell, Summary, SummaryCell
from kgrag.evaluation.stats.intervals import clipped, is_unbounded, macro_weights, score_range

__all__ = ["ALL", "MACRO", "Cell", "QuestionValues", "Summary", "question_types", "question_values", "summarize"]

Cell = SummaryCell
LATENCY, COLD, WARM = "cost.latency_ms", "cost.latency_cold_ms", "cost.latency_warm_ms"
QuestionValues = dict[str, tuple[str, float]]  # question id → (type, value averaged over runs)


def mean_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation (0 for one value, None for none)."""
    if not values:
        return None, None
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


@dataclass
class _Series:
    """One pipeline × metric: question id → (type, run → value), and unmeasured counts per type."""

    values: dict[str, tuple[str, dict[int, float]]] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, score: EvalScore) -> None:
        if score.value is None:
            self.missing[score.question_type] += 1
            return
        _, runs = self.values.setdefault(score.question_id, (score.question_type, {}))
        runs[score.run_index] = score.value

    def per_question(self) -> QuestionValues:
        return {q: (t, statistics.fmean(runs.values())) for q, (t, runs) in self.values.items()}

    def run_means(self, min_stratum: int = MIN_STRATUM) -> dict[str, list[float]]:
        """Column → the mean of each run (the spread over runs is their standard deviation); ``Macro``
        weighs the types as the interval does (``min(n, min_stratum)``)."""
        by_run: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for question_type, runs in self.values.values():
            for run, value in runs.items():
                by_run[run][question_type].append(value)
        columns: dict[str, list[float]] = defaultdict(list)
        for _, per_type in sorted(by_run.items()):
            for question_type, vals in per_type.items():
                columns[question_type].append(statistics.fmean(vals))
            columns[ALL].append(statistics.fmean([v for vals in per_type.values() for v in vals]))
            weights = macro_weights([len(vals) for vals in per_type.values()], min_stratum)
            means = [statistics.fmean(vals) for vals in per_type.values()]
            columns[MACRO].append(float(sum(w * m for w, m in zip(weights, means, strict=True))))
        return columns


def _with_cold_warm(scores: Iterable[EvalScore]) -> Iterable[EvalScore]:
    for s in scores:
        yield s
        if s.metric == LATENCY:
            yield replace(s, metric=COLD if s.run_index == 0 else WARM)


def _series(scores: Iterable[EvalScore]) -> dict[tuple[str, str], _Series]:
    series: dict[tuple[str, str], _Series] = defaultdict(_Series)
    for s in _with_cold_warm(scores):
        series[(s.pipeline, s.metric)].add(s)
    return series


def _row(series: _Series, settings: Bootstrap, metric: str) -> dict[str, Cell]:
    """A series' cells: a score's interval cut to its range (:func:`score_range`), a cost's (tokens,
    milliseconds) to what is not negative."""
    if is_unbounded(metric):
        found = {c: clipped(e, (0.0, math.inf)) for c, e in estimates(series.per_question(), settings).items()}
    else:
        found = estimates(series.per_question(), settings, score_range(metric))
    spreads = series.run_means(settings.min_stratum)
    types = sorted((set(found) - {ALL, MACRO}) | set(series.missing))
    row: dict[str, Cell] = {}
    for column in [*types, ALL, MACRO]:
        estimate = found.get(column)
        runs = spreads.get(column, [])
        unmeasured = sum(series.missing.values()) if column in (ALL, MACRO) else series.missing.get(column, 0)
        base: IntervalCell = estimate.as_cell() if estimate else {"mean": None, "ci95": None, "n": 0}
        row[column] = {**base, "std": mean_std(runs)[1], "runs": len(runs), "unmeasured": unmeasured}
    return row


def summarize(scores: Iterable[EvalScore], settings: Bootstrap | None = None) -> Summary:
    """pipeline → metric → column (each question type, ``All``, ``Macro``) → cell with ``mean``, ``ci95``
    (``[low, high]`` or None), ``n`` (questions measured), ``std`` over runs, ``runs`` and ``unmeasured``."""
    chosen = settings or Bootstrap()
    out: Summary = defaultdict(dict)
    for (pipeline, metric), series in sorted(_series(scores).items()):
        out[pipeline][metric] = _row(series, chosen, metric)
    return dict(out)


def question_values(scores: Iterable[EvalScore]) -> dict[str, dict[str, QuestionValues]]:
    """pipeline → metric → question id → (type, value averaged over runs): the input of paired tests."""
    out: dict[str, dict[str, QuestionValues]] = defaultdict(dict)
    for (pipeline, metric), series in _series(scores).items():
        out[pipeline][metric] = series.per_question()
    return dict(out)


def question_types(summary: Summary) -> list[str]:
    """The question-type columns present, sorted, without ``All``/``Macro``."""
    return sorted({t for rows in summary.values() for row in rows.values() for t in row if t not in (ALL, MACRO)})
