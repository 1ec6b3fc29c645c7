"""Intervals over questions: skewness-corrected t intervals per question type and overall, and a
Welch t interval for the type-macro mean with capped weights.

The unit of uncertainty is the *question*: a score averaged over repeated runs is one value per question,
and an interval says how much a mean would move with another draw of questions of the same kind. The
method was chosen by measured coverage (``bench/bench_verdict_statistics.py`` simulates question sets
whose truth is known and compares the percentile, BCa and studentized bootstraps, Student's t, a
Cornish–Fisher-corrected t and Hall's transformed t; docs/results/verdict-statistics.md): the
percentile and BCa bootstraps cover less than they claim at 10–30 questions, the plain t interval
falls short on strata whose scores pile up at 0 or 1, and Hall's transformed t holds 0.93 on every
stratum of ten or more questions measured, even where half the scores are 0. It needs no resampling,
so it is the same on every machine.

* A question type (a *stratum*) gets Hall's skewness-corrected t interval over its own questions (none
  below two), widened where most of its scores sit at one end (:func:`score_bounds`); a type below
  ``min_stratum`` questions is flagged ``small``.
* ``All`` is the question-weighted mean of every question, with the same interval over all of them.
* ``Macro`` weighs each type by ``min(n_type, min_stratum)``: types with at least ``min_stratum``
  questions weigh the same, a smaller type weighs in proportion to its size, so one question cannot carry
  a quarter of the mean. Its variance is ``Σ w² v / n`` per type, where a small type's spread is at least
  the pooled within-type spread (one question says nothing about spread), and its degrees of freedom come
  from Welch–Satterthwaite.

A paired difference ``a − b`` per shared question gets its own interval (:func:`difference_stats`): two
pipelines often score the same on most questions, so the differences pile up at exactly 0 with a few large
values either way. There the skewness correction misleads (its sample skewness comes from a handful of
values) and the sample spread underestimates the real one (it rests on how many questions happened to
differ), so both intervals cover far less than they claim on such sets. The difference's standard
error is therefore taken over the sample plus two pseudo-differences, one each way, of the typical size
of a difference that was observed (the root mean square of the non-zero ones, with the largest difference
the scores allow counted as one more), in the spirit of adding two successes and two failures to a proportion
(agresti-coull-1998); the interval is Student's t around the observed mean, and the p of
:meth:`Estimate.p_value` inverts that same interval, so a difference is significant exactly when its
interval excludes 0. Its coverage on sparse, mixed and dense difference shapes, and its width against
Student's t, are measured in docs/results/verdict-statistics.md.

A paired difference of an *unbounded* measure (:func:`is_unbounded`: tokens, milliseconds, counts) has no
largest size for pseudo-differences to take and is rarely exactly 0, but it has long tails: each side of
its interval is the farther of Hall's and Student's (:func:`.spreads.heavy_tail_bounds`), on the
measure's own scale and never cut; ``Macro`` is Welch's t with each type's sample variance. Its p is
Student's, whose interval lies inside the one shown, so an interval that excludes 0 always has a
significant p.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats as sps

from kgrag.evaluation.stats.cells import BootstrapSettings, IntervalCell
from kgrag.evaluation.stats.spreads import (
    difference_spread,
    difference_stats,
    heavy_tail_bounds,
    largest_possible_difference,
    pile_variance,
    pseudo_variance,
    score_bounds,
    score_spread,
    skew_t_bounds,
    t_half_width,
    t_stats,
)

ALL = "All"
MACRO = "Macro"
MIN_STRATUM = 10
Interval = tuple[float, float]
SCORE_RANGE: Interval = (0.0, 1.0)
"""The range of a metric's value (:class:`kgrag.evaluation.metrics.base.Measured`): intervals of such
scores are cut to it and differences of two to ±1. A judge's own scores (``judge.*``: 1–5, 0–10) keep
their scale and are not cut; costs (``cost.*``) have no upper end (:func:`score_range`)."""
JUDGE_SCORES = "judge."
UNBOUNDED_SCORES = "cost."
"""The prefix of the score series that have no upper end: tokens, milliseconds and counts per question."""


def is_unbounded(metric: str) -> bool:
    """Whether the score series ``metric`` has no upper end (a cost: tokens, latency), so its intervals
    and those of its differences stay on its own scale (:func:`unbounded_estimate`)."""
    return metric.startswith(UNBOUNDED_SCORES)


def score_range(metric: str) -> Interval | None:
    """The range a score series ``metric`` can take: :data:`SCORE_RANGE` for a metric, None for a judge's
    score on its own scale and for an unbounded cost (:func:`is_unbounded`)."""
    return None if metric.startswith(JUDGE_SCORES) or is_unbounded(metric) else SCORE_RANGE


QuestionValues = dict[str, tuple[str, float]]  # question id → (type, value averaged over runs)


@dataclass(frozen=True)
class Bootstrap:
    """How intervals and verdicts are computed: coverage ``level``, the family-wise ``alpha`` of a
    verdict and ``min_stratum`` (the size from which a question type gets full macro weight and may be
    reported on its own). ``resamples`` and ``seed`` drive the resampling intervals that remain (pairwise
    win rates); means and differences use analytic t intervals."""

    resamples: int = 2000
    seed: int = 0
    level: float = 0.95
    min_stratum: int = MIN_STRATUM

    @property
    def alpha(self) -> float:
        return round(1.0 - self.level, 10)

    def describe(self) -> BootstrapSettings:
        return {
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
            "min_stratum": self.min_stratum,
            "method": "t interval over questions with Hall's skewness correction; a paired difference: "
            "Student's t with two pseudo-differences of the typical observed size in its standard error "
            "(a cost's: each side the farther of Hall's and Student's t, on its own scale); "
            "Macro: Welch t, a type weighs min(n, min_stratum)",
            "verdict": "Holm over the leader's paired t-tests against every other pipeline",
        }


@dataclass(frozen=True)
class Estimate:
    """A mean with its interval (``None`` below two questions), the questions behind it, the standard
    error and degrees of freedom of the t interval and whether the stratum is below ``min_stratum``."""

    mean: float | None
    ci95: Interval | None
    n: int
    se: float | None = None
    df: float | None = None
    small: bool = False

    def as_cell(self) -> IntervalCell:
        cell: IntervalCell = {"mean": self.mean, "ci95": list(self.ci95) if self.ci95 else None, "n": self.n}
        if self.small:
            cell["small"] = True
        return cell

    def p_value(self) -> float | None:
        """Two-sided p of the t-test that the mean is 0 (for a paired difference: no difference)."""
        if self.mean is None or self.se is None or self.df is None:
            return None
        if self.se == 0:
            return 1.0 if self.mean == 0 else 0.0
        return float(2 * sps.t.sf(abs(self.mean) / self.se, self.df))


def difference_estimate(values: np.ndarray, level: float, largest: float, min_stratum: int = 0) -> Estimate:
    """The mean paired difference with the t interval of :func:`difference_stats` (none below two)."""
    n = len(values)
    if n < 2:
        return t_estimate(values, level, min_stratum)
    mean, se, df = difference_stats(values, largest)
    return _estimate(float(mean), float(se), df, n, level, n < min_stratum)


def unbounded_estimate(values: np.ndarray, level: float, min_stratum: int = 0) -> Estimate:
    """The mean paired difference of an unbounded measure with the interval of
    :func:`.spreads.heavy_tail_bounds` (none below two)."""
    n = len(values)
    if n < 2:
        return t_estimate(values, level, min_stratum)
    mean, se, df = t_stats(values)
    low, high = heavy_tail_bounds(values, level)
    return Estimate(float(mean), (float(low), float(high)), n, float(se), df, n < min_stratum)


def macro_stats(
    groups: Sequence[np.ndarray], min_stratum: int, spread: Callable[[np.ndarray], np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Macro`` mean, standard error and Welch–Satterthwaite degrees of freedom along the last axis of
    each group (one array per type, at least two values in all). A type below ``min_stratum`` weighs
    ``n / min_stratum`` of a full one and its spread is at least the pooled within-type spread.
    ``spread`` gives a type's variance (:func:`score_spread`, :func:`difference_spread`; default the
    sample variance)."""
    variance_of = spread or (lambda values: values.var(axis=-1, ddof=1))
    sizes = [g.shape[-1] for g in groups]
    weights = macro_weights(sizes, min_stratum)
    mean = sum(w * g.mean(axis=-1) for w, g in zip(weights, groups, strict=True))
    own = [variance_of(g) if g.shape[-1] > 1 else np.zeros(g.shape[:-1]) for g in groups]
    pooled_df = float(sum(n - 1 for n in sizes if n > 1))
    if pooled_df > 0:
        pooled = sum((n - 1) * v for n, v in zip(sizes, own, strict=True) if n > 1) / pooled_df
    else:
        pooled, pooled_df = variance_of(np.concatenate(list(groups), axis=-1)), float(sum(sizes) - 1)
    parts, dfs = [], []
    for w, mine, n in zip(weights, own, sizes, strict=True):
        variance = mine if n >= min_stratum else np.maximum(mine, pooled)
        parts.append(w * w * variance / n)
        dfs.append(float(n - 1) if n >= min_stratum else max(pooled_df, 1.0))
    var = sum(parts)
    denominator = sum(p * p / d for p, d in zip(parts, dfs, strict=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(denominator > 0, var * var / np.where(denominator > 0, denominator, 1.0), sum(sizes) - 1)
    return np.asarray(mean), np.sqrt(var), np.asarray(df)


def _estimate(mean: float, se: float, df: float, n: int, level: float, small: bool = False) -> Estimate:
    half = float(t_half_width(se, df, level))
    return Estimate(mean, (mean - half, mean + half), n, se, df, small)


def t_estimate(values: np.ndarray, level: float, min_stratum: int = 0, largest: float | None = None) -> Estimate:
    """The mean of ``values`` with the interval of :func:`score_bounds` (none below two values);
    ``largest``: the width of the scores' range, when known."""
    n = len(values)
    small = n < min_stratum
    if n == 0:
        return Estimate(None, None, 0, small=small)
    if n < 2:
        return Estimate(float(values.mean()), None, n, small=small)
    mean, se, df = t_stats(values)
    low, high = score_bounds(values, level, largest)
    return Estimate(float(mean), (float(low), float(high)), n, float(se), df, small)


def ratio_interval(
    numerators: np.ndarray, denominators: np.ndarray, level: float, *, difference: bool = False
) -> tuple[float, Interval] | None:
    """``Σ numerators / Σ denominators`` over clusters (questions, each with several trials) with a
    cluster t interval: the ratio's linearised per-cluster values ``(num − R·den) / mean(den)`` go
    through :func:`skew_t_bounds`. None below two clusters or without a denominator.

    Rates whose trials are mostly one outcome (a win rate of nearly 0 when the judge mostly calls ties)
    pile up like the scores of :func:`score_bounds`, and a rate that is a difference of two (wins of A
    minus wins of B, ``difference``) piles up at 0 like a paired difference: each side then reaches at
    least the t half-width of the same pseudo-observation spread (:func:`pile_variance`, or
    :func:`pseudo_variance` for a difference) of the per-cluster rates ``num / mean(den)`` (a rate and a
    difference of two are at most 1 in size)."""
    total = float(denominators.sum())
    if len(numerators) < 2 or total <= 0:
        return None
    ratio = float(numerators.sum()) / total
    linear = (numerators - ratio * denominators) / denominators.mean()
    low, high = skew_t_bounds(linear, level)
    per_cluster = numerators / denominators.mean()
    spread = pseudo_variance(per_cluster, 1.0) if difference else pile_variance(per_cluster, 1.0)
    floor = float(t_half_width(np.sqrt(spread / len(numerators)), len(numerators) - 1, level))
    return ratio, (ratio + min(float(low), -floor), ratio + max(float(high), floor))


def by_type(values: Mapping[str, tuple[str, float]]) -> dict[str, np.ndarray]:
    """Question values grouped by type, both in sorted order."""
    groups: dict[str, list[float]] = defaultdict(list)
    for question_id in sorted(values):
        question_type, value = values[question_id]
        groups[question_type].append(value)
    return {t: np.asarray(v, dtype=np.float64) for t, v in sorted(groups.items())}


def macro_weights(sizes: Sequence[int], min_stratum: int) -> np.ndarray:
    """Each type's weight in ``Macro``: ``min(n, min_stratum)``, normalised to sum to 1."""
    capped = np.minimum(np.asarray(sizes, dtype=np.float64), float(max(min_stratum, 1)))
    return capped / capped.sum()


def macro_estimate(
    groups: Sequence[np.ndarray],
    level: float,
    min_stratum: int,
    spread: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Estimate:
    """``Macro`` over ``groups`` (one array per type) with capped weights and a Welch–Satterthwaite t;
    ``spread``: each type's variance (:func:`macro_stats`)."""
    n = sum(len(g) for g in groups)
    if n < 2:
        weights = macro_weights([len(g) for g in groups], min_stratum)
        return Estimate(float(sum(w * g.mean() for w, g in zip(weights, groups, strict=True))), None, n)
    mean, se, df = macro_stats(groups, min_stratum, spread)
    return _estimate(float(mean), float(se), float(df), n, level)


def clipped(found: Estimate, bounds: Interval | None) -> Estimate:
    """``found`` with its interval cut to ``bounds``, the range the mean can take (a recall cannot go
    below 0): a skew-corrected interval of a stratum whose scores are nearly all 0 can reach past it.
    Cutting never drops the true mean, so coverage is unchanged."""
    if bounds is None or found.ci95 is None:
        return found
    low, high = found.ci95
    return replace(found, ci95=(min(max(low, bounds[0]), bounds[1]), max(min(high, bounds[1]), bounds[0])))


def estimates(
    values: Mapping[str, tuple[str, float]],
    settings: Bootstrap,
    bounds: Interval | None = None,
    largest: float | None = None,
) -> dict[str, Estimate]:
    """``question id → (type, value)`` to an :class:`Estimate` per type, ``All`` and ``Macro``; intervals
    are cut to ``bounds`` when the values' possible range is known. ``largest`` (the largest difference
    the scores allow) marks the values as paired differences: their intervals are those of
    :func:`difference_stats`."""
    level = settings.level
    if largest is None:
        width = None if bounds is None else bounds[1] - bounds[0]
        out = _columns(values, settings, lambda g, floor: t_estimate(g, level, floor, width), score_spread(width))
    else:
        spread = difference_spread(largest)
        out = _columns(values, settings, lambda g, floor: difference_estimate(g, level, largest, floor), spread)
    return {column: clipped(found, bounds) for column, found in out.items()}


OneColumn = Callable[[np.ndarray, int], Estimate]
"""One column's estimate from its values and the ``min_stratum`` below which it is flagged small."""


def _columns(
    values: Mapping[str, tuple[str, float]],
    settings: Bootstrap,
    one: OneColumn,
    spread: Callable[[np.ndarray], np.ndarray] | None,
) -> dict[str, Estimate]:
    """An estimate per type and ``All`` by ``one`` and ``Macro`` by :func:`macro_estimate` with ``spread``."""
    groups = by_type(values)
    if not groups:
        return {}
    out = {t: one(g, settings.min_stratum) for t, g in groups.items()}
    out[ALL] = one(np.concatenate(list(groups.values())), 0)
    one_type = len(groups) == 1  # the type-macro mean of one type is the mean of all its questions
    level, floor = settings.level, settings.min_stratum
    out[MACRO] = out[ALL] if one_type else macro_estimate(list(groups.values()), level, floor, spread)
    return out


def column_mean(values: Mapping[str, tuple[str, float]], column: str, min_stratum: int = MIN_STRATUM) -> float:
    """The point mean of one column (a type, ``All`` or ``Macro``); 0.0 when empty."""
    groups = by_type(values)
    if not groups:
        return 0.0
    if column == ALL:
        return float(np.concatenate(list(groups.values())).mean())
    if column == MACRO:
        weights = macro_weights([len(g) for g in groups.values()], min_stratum)
        return float(sum(w * g.mean() for w, g in zip(weights, groups.values(), strict=True)))
    return float(groups[column].mean()) if column in groups else 0.0


def paired(
    a: Mapping[str, tuple[str, float]],
    b: Mapping[str, tuple[str, float]],
    settings: Bootstrap,
    bounds: Interval | None = None,
    *,
    unbounded: bool = False,
) -> dict[str, Estimate]:
    """Estimates of ``a − b`` over the questions both measured (per type, ``All``, ``Macro``), with the
    intervals of :func:`difference_stats`; with the values' ``bounds`` a difference's interval is cut to
    the range a difference can take. The largest possible difference (the pseudo-differences' size when
    no question differs) is :func:`largest_difference`. ``unbounded`` (a cost, :func:`is_unbounded`):
    the intervals of :func:`unbounded_estimate` on the values' own scale instead."""
    shared = sorted(set(a) & set(b))
    if unbounded:
        level = settings.level
        diffs = {q: (a[q][0], a[q][1] - b[q][1]) for q in shared}
        return _columns(diffs, settings, lambda g, floor: unbounded_estimate(g, level, floor), None)
    spread = None if bounds is None else (bounds[0] - bounds[1], bounds[1] - bounds[0])
    largest = largest_difference(a, b, bounds)
    return estimates({q: (a[q][0], a[q][1] - b[q][1]) for q in shared}, settings, spread, largest)


def largest_difference(
    a: Mapping[str, tuple[str, float]], b: Mapping[str, tuple[str, float]], bounds: Interval | None = None
) -> float:
    """The largest difference two pipelines' scores allow: the width of ``bounds`` when the range is
    known, else :func:`largest_possible_difference` of the scores either side has on the questions both
    measured."""
    if bounds is not None:
        return bounds[1] - bounds[0]
    shared = set(a) & set(b)
    return largest_possible_difference(side[q][1] for side in (a, b) for q in shared)


def excludes_zero(ci: Sequence[float] | None) -> bool:
    """True when an interval lies wholly above or wholly below 0."""
    return ci is not None and (ci[0] > 0 or ci[1] < 0)
