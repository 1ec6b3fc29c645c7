"""Bootstrap confidence intervals over questions (percentile intervals, efron-tibshirani-1993).

The unit of uncertainty is the *question*: a score averaged over repeated runs is one value per question,
and the interval says how much the mean would move with another draw of questions of the same kind.
Resampling is stratified by question type (each type keeps its size), so the question-weighted mean
(``All``) and the type-macro mean (``Macro``) come from the same draws; a type's own interval resamples
within that type. A paired difference feeds ``a − b`` per question (questions both pipelines measured)
through the same function, which keeps the pairing the shared questions give.

Draws come from a NumPy generator seeded by :attr:`Bootstrap.seed`: the same scores and settings give
the same interval on every machine. Fewer than two questions give no interval (``None``): one value says
nothing about spread.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

ALL = "All"
MACRO = "Macro"
Interval = tuple[float, float]


@dataclass(frozen=True)
class Bootstrap:
    """How intervals are drawn: resamples, seed and coverage level (0.95 → the 2.5th–97.5th percentiles)."""

    resamples: int = 2000
    seed: int = 0
    level: float = 0.95

    def describe(self) -> dict[str, Any]:
        return {**asdict(self), "method": "percentile bootstrap over questions, stratified by question type"}


@dataclass(frozen=True)
class Estimate:
    """A mean with its interval (``None`` below two questions) and the number of questions behind it."""

    mean: float | None
    ci95: Interval | None
    n: int

    def as_cell(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci95": list(self.ci95) if self.ci95 else None, "n": self.n}


def _interval(samples: np.ndarray, level: float) -> Interval:
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def _by_type(values: Mapping[str, tuple[str, float]]) -> dict[str, np.ndarray]:
    groups: dict[str, list[float]] = defaultdict(list)
    for question_id in sorted(values):
        question_type, value = values[question_id]
        groups[question_type].append(value)
    return {t: np.asarray(v, dtype=np.float64) for t, v in sorted(groups.items())}


def _type_draws(groups: Mapping[str, np.ndarray], settings: Bootstrap) -> dict[str, np.ndarray]:
    """Per type, the mean of each of ``resamples`` draws with replacement (one row of indices per draw)."""
    rng = np.random.default_rng(settings.seed)
    draws: dict[str, np.ndarray] = {}
    for question_type, vals in groups.items():
        picks = rng.integers(0, len(vals), size=(settings.resamples, len(vals)))
        draws[question_type] = vals[picks].mean(axis=1)
    return draws


def estimates(values: Mapping[str, tuple[str, float]], settings: Bootstrap) -> dict[str, Estimate]:
    """``question id → (type, value)`` to an :class:`Estimate` per type, ``All`` (question-weighted) and
    ``Macro`` (every type weighs the same)."""
    groups = _by_type(values)
    if not groups:
        return {}
    draws = _type_draws(groups, settings)
    sizes = {t: len(v) for t, v in groups.items()}
    n = sum(sizes.values())
    out: dict[str, Estimate] = {}
    for question_type, vals in groups.items():
        ci = _interval(draws[question_type], settings.level) if len(vals) > 1 else None
        out[question_type] = Estimate(float(vals.mean()), ci, len(vals))
    stacked = np.stack([draws[t] for t in groups])  # types × resamples
    weights = np.asarray([sizes[t] for t in groups], dtype=np.float64)
    micro = (stacked * weights[:, None]).sum(axis=0) / n
    macro = stacked.mean(axis=0)
    enough = n > 1
    out[ALL] = Estimate(
        float(sum(v.sum() for v in groups.values()) / n), _interval(micro, settings.level) if enough else None, n
    )
    out[MACRO] = Estimate(
        float(np.mean([v.mean() for v in groups.values()])), _interval(macro, settings.level) if enough else None, n
    )
    return out


def column_mean(values: Mapping[str, tuple[str, float]], column: str) -> float:
    """The point mean of one column (a type, ``All`` or ``Macro``) without resampling; 0.0 when empty."""
    groups = _by_type(values)
    if column == ALL:
        pooled = [v for vals in groups.values() for v in vals]
        return float(np.mean(pooled)) if pooled else 0.0
    if column == MACRO:
        return float(np.mean([v.mean() for v in groups.values()])) if groups else 0.0
    return float(groups[column].mean()) if column in groups else 0.0


def paired(
    a: Mapping[str, tuple[str, float]], b: Mapping[str, tuple[str, float]], settings: Bootstrap
) -> dict[str, Estimate]:
    """Estimates of ``a − b`` over the questions both measured (per type, ``All``, ``Macro``)."""
    shared = sorted(set(a) & set(b))
    return estimates({q: (a[q][0], a[q][1] - b[q][1]) for q in shared}, settings)


def excludes_zero(ci: Sequence[float] | None) -> bool:
    """True when an interval lies wholly above or wholly below 0."""
    return ci is not None and (ci[0] > 0 or ci[1] < 0)
