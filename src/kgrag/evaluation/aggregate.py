"""From per-question scores to the tables people read: per pipeline × question type, mean ± std over
repeated runs, with micro (every question weighs the same) and macro (every question type weighs the
same) averages, and the count of unmeasured scores kept apart from the mean.

The spread is over *runs* (lundberg-2026 reports mean ± std over 5 runs): each run's mean is computed
first, then those means are averaged. Unmeasured scores (``None``) are excluded from the means and
counted, never averaged in as zeros.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from kgrag.core.eval_records import EvalScore

ALL = "All"
MACRO = "Macro"
Cell = dict[str, float | int | None]


def mean_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation (0 for one value, None for none)."""
    if not values:
        return None, None
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def _cell(per_run: dict[int, list[float]], unmeasured: int) -> Cell:
    means = [statistics.fmean(v) for _, v in sorted(per_run.items()) if v]
    mean, std = mean_std(means)
    measured = sum(len(v) for v in per_run.values())
    return {"mean": mean, "std": std, "n": measured, "unmeasured": unmeasured, "runs": len(means)}


def _macro(per_type_run: dict[str, dict[int, list[float]]], unmeasured: int) -> Cell:
    runs: dict[int, list[float]] = defaultdict(list)
    for per_run in per_type_run.values():
        for run, values in per_run.items():
            if values:
                runs[run].append(statistics.fmean(values))
    mean, std = mean_std([statistics.fmean(v) for _, v in sorted(runs.items())])
    return {
        "mean": mean,
        "std": std,
        "n": sum(len(v) for v in runs.values()),
        "unmeasured": unmeasured,
        "runs": len(runs),
    }


def summarize(scores: Iterable[EvalScore]) -> dict[str, dict[str, dict[str, Cell]]]:
    """pipeline → metric → column (each question type, ``All`` = micro, ``Macro``) → cell."""
    values: dict[tuple[str, str], dict[str, dict[int, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    missing: dict[tuple[str, str, str], int] = defaultdict(int)
    for s in scores:
        key = (s.pipeline, s.metric)
        if s.value is None:
            missing[(s.pipeline, s.metric, s.question_type)] += 1
            continue
        values[key][s.question_type][s.run_index].append(s.value)
    keys = set(values) | {(p, m) for p, m, _ in missing}
    out: dict[str, dict[str, dict[str, Cell]]] = defaultdict(dict)
    for pipeline, metric in sorted(keys):
        per_type = values.get((pipeline, metric), {})
        types = sorted(set(per_type) | {t for p, m, t in missing if (p, m) == (pipeline, metric)})
        row = {t: _cell(per_type.get(t, {}), missing[(pipeline, metric, t)]) for t in types}
        pooled: dict[int, list[float]] = defaultdict(list)
        for per_run in per_type.values():
            for run, vals in per_run.items():
                pooled[run].extend(vals)
        total_missing = sum(missing[(pipeline, metric, t)] for t in types)
        row[ALL] = _cell(pooled, total_missing)
        row[MACRO] = _macro(dict(per_type), total_missing)
        out[pipeline][metric] = row
    return dict(out)


def question_types(summary: dict[str, dict[str, dict[str, Cell]]]) -> list[str]:
    """The question-type columns present, sorted, without ``All``/``Macro``."""
    return sorted({t for rows in summary.values() for row in rows.values() for t in row if t not in (ALL, MACRO)})


def best_pipeline(summary: dict[str, Any], metric: str, column: str = MACRO) -> str | None:
    """The pipeline with the highest mean of ``metric`` in ``column`` (None when nobody measured it)."""
    scored = [
        (row[metric][column]["mean"], p)
        for p, row in summary.items()
        if metric in row and row[metric][column]["mean"] is not None
    ]
    return max(scored)[1] if scored else None
