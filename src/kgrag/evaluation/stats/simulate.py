"""Simulations with known truth: how often the intervals cover, how often equal pipelines get a "best"
and how often a real difference is found. The test suite and ``bench/bench_verdict_statistics.py`` run
these on the production formulas (:func:`.spreads.score_bounds`, :func:`.spreads.difference_stats`,
:func:`.intervals.macro_stats`, :func:`.family.holm_rejects_all`), vectorised over thousands of simulated
question sets at once.

Scores follow the shapes evaluation scores have: per question type a mixture of exact 0s, exact 1s and a
skewed Beta in between, with type means from 0.15 to 0.75, and question-type mixes as unbalanced as a
generated question set gets (one type holds most questions, one a handful).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from kgrag.evaluation.stats.family import holm_rejects_all
from kgrag.evaluation.stats.intervals import MIN_STRATUM, macro_stats, macro_weights
from kgrag.evaluation.stats.spreads import difference_spread, difference_stats, score_bounds, score_spread, t_half_width


@dataclass(frozen=True)
class TypeShape:
    """A question type's score distribution: P(score = 0), P(score = 1), else Beta(a, b)."""

    zero: float
    one: float
    a: float
    b: float

    @property
    def mean(self) -> float:
        return self.one + (1 - self.zero - self.one) * self.a / (self.a + self.b)

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        u = rng.random(shape)
        middle = rng.beta(self.a, self.b, shape)
        return np.where(u < self.zero, 0.0, np.where(u < self.zero + self.one, 1.0, middle))


SHAPES = (
    TypeShape(0.05, 0.25, 4, 2),  # mostly high, left-skewed
    TypeShape(0.20, 0.05, 2, 4),  # mostly low, right-skewed
    TypeShape(0.10, 0.10, 2, 2),  # spread over the whole range
    TypeShape(0.30, 0.05, 1.5, 4),  # a third zeros
)
"""Score shapes of the suite's checks: skewed, with point masses at 0 and 1."""
HARSH = (
    TypeShape(0.10, 0.40, 5, 2),  # 40 % ones
    TypeShape(0.35, 0.10, 2, 5),
    TypeShape(0.20, 0.20, 2, 2),
    TypeShape(0.50, 0.05, 1, 4),  # half zeros
)
"""Harsher shapes: 40 % of one type's scores are 1, half of another's are 0."""
SPARSE = (
    TypeShape(0.90, 0.0, 2, 3),  # nine in ten scores 0: a type the pipelines rarely find anything for
    TypeShape(0.05, 0.90, 4, 1),  # nine in ten scores 1
    TypeShape(0.60, 0.02, 2, 3),
    TypeShape(0.95, 0.0, 2, 3),
)
"""Scores piled at one end: nine in ten questions scoring 0 (or 1), where a stratum of ten questions
often holds no other value."""
MIX = (0.65, 0.20, 0.10, 0.05)
"""The skewed type mix: one type with two thirds of the questions, one with a twentieth."""


@dataclass(frozen=True)
class DifferenceShape:
    """Paired differences of two pipelines: a question differs with probability ``differ``, downwards
    with probability ``down`` of those, by a size drawn from ``sizes`` (the steps a recall over a few
    evidence sentences takes); the others are exactly 0."""

    differ: float
    down: float
    sizes: tuple[float, ...] = (0.2, 0.25, 1 / 3, 0.5, 2 / 3, 1.0)

    @property
    def mean(self) -> float:
        return self.differ * (1 - 2 * self.down) * float(np.mean(self.sizes))

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        u = rng.random(shape)
        size = rng.choice(np.asarray(self.sizes), shape)
        return np.where(u < self.differ * self.down, -size, np.where(u < self.differ, size, 0.0))


DIFFERENCES = {
    "4 % differ, 3 of 4 down": DifferenceShape(0.04, 0.75),
    "14 % differ, either way": DifferenceShape(0.14, 0.5),
    "14 % differ, 5 of 7 down": DifferenceShape(0.14, 5 / 7),
    "20 % differ, 3 of 4 down": DifferenceShape(0.20, 0.75),
    "40 % differ, 3 of 5 down": DifferenceShape(0.40, 0.6),
    "90 % differ, 2 of 5 down": DifferenceShape(0.90, 0.4),
}
"""Difference shapes of two pipelines compared on the same questions, from nearly identical (few
questions differ, the usual case when one pipeline routes to another) to different on almost every
question."""


def difference_coverage(shape: DifferenceShape, n: int, reps: int, seed: int, level: float = 0.95) -> float:
    """Share of ``reps`` simulated sets of ``n`` paired differences whose interval (the production
    :func:`.spreads.difference_stats`, largest difference 1) holds the true mean difference."""
    values = shape.draw(np.random.default_rng(seed), (reps, n))
    mean, se, df = difference_stats(values, 1.0)
    return _covered(mean, se, df, shape.mean, level)


def type_counts(n: int, mix: Sequence[float] = MIX) -> list[int]:
    """Questions per type for ``n`` questions in proportions ``mix`` (largest remainders, each ≥ 1)."""
    raw = np.asarray(mix) * n
    counts = np.maximum(np.floor(raw).astype(int), 1)
    while counts.sum() < n:
        counts[int(np.argmax(raw - counts))] += 1
    while counts.sum() > n:
        counts[int(np.argmax(counts))] -= 1
    return [int(c) for c in counts]


@dataclass(frozen=True)
class Coverage:
    """Share of simulated question sets whose 95 % interval held the true mean, per column."""

    n: int
    counts: list[int]
    all: float
    macro: float
    strata: dict[int, float]  # type index → coverage, for types of ≥ MIN_STRATUM questions


def _covered(mean: np.ndarray, se: np.ndarray, df: np.ndarray | float, truth: float, level: float) -> float:
    half = t_half_width(se, df, level)
    return float(np.mean(np.abs(mean - truth) <= half))


def _inside(bounds: tuple[np.ndarray, np.ndarray], truth: float) -> float:
    return float(np.mean((bounds[0] <= truth) & (truth <= bounds[1])))


def coverage(
    n: int,
    reps: int,
    seed: int,
    shapes: Sequence[TypeShape] = SHAPES,
    level: float = 0.95,
    min_stratum: int = MIN_STRATUM,
) -> Coverage:
    """Coverage of the ``All``, ``Macro`` and per-type intervals at ``n`` questions, over ``reps`` sets."""
    rng = np.random.default_rng(seed)
    counts = type_counts(n)
    groups = [shape.draw(rng, (reps, c)) for shape, c in zip(shapes, counts, strict=True)]
    means = [shape.mean for shape in shapes]
    all_truth = float(np.dot(counts, means) / n)
    macro_truth = float(np.dot(macro_weights(counts, min_stratum), means))
    all_cov = _inside(score_bounds(np.concatenate(groups, axis=-1), level, 1.0), all_truth)
    mean, se, mdf = macro_stats(groups, min_stratum, score_spread(1.0))
    macro_cov = _covered(mean, se, mdf, macro_truth, level)
    strata = {}
    for index, g in enumerate(groups):
        if g.shape[-1] >= min_stratum:
            strata[index] = _inside(score_bounds(g, level, 1.0), means[index])
    return Coverage(n, counts, all_cov, macro_cov, strata)


def _pipelines(rng: np.random.Generator, k: int, counts: Sequence[int], reps: int) -> list[np.ndarray]:
    """Per type, ``(reps, k, n_type)`` scores of k pipelines drawn from the same distribution."""
    return [shape.draw(rng, (reps, k, c)) for shape, c in zip(SHAPES, counts, strict=True)]


def best_rate(groups: Sequence[np.ndarray], column: str, alpha: float, min_stratum: int = MIN_STRATUM) -> float:
    """Share of simulated sets in which the leader is named best (Holm over its k − 1 paired t-tests).

    ``groups``: per type, ``(reps, k, n_type)`` scores; ``column``: ``"All"`` or ``"Macro"``."""
    reps, k = groups[0].shape[:2]
    weights = macro_weights([g.shape[-1] for g in groups], min_stratum)
    if column == "All":
        means = np.concatenate(list(groups), axis=-1).mean(axis=-1)
    else:
        means = sum(w * g.mean(axis=-1) for w, g in zip(weights, groups, strict=True))
    leader = np.argmax(means, axis=1)  # (reps,)
    rows = np.arange(reps)[:, None]
    others = np.asarray([[j for j in range(k) if j != i] for i in range(k)])[leader]  # (reps, k - 1)
    diffs = [g[rows, leader[:, None]][:, :, :] - g[rows, others] for g in groups]  # (reps, k - 1, n_type)
    if column == "All":
        mean, p = _p_values(*difference_stats(np.concatenate(diffs, axis=-1), 1.0))
    else:
        mean, p = _p_values(*macro_stats(diffs, min_stratum, difference_spread(1.0)))
        big = [d for d in diffs if d.shape[-1] >= min_stratum]
        if len(big) < len(diffs):  # the verdict's check without the small types (verdicts.robust_p)
            whole = np.concatenate(diffs, axis=-1)
            check = macro_stats(big, min_stratum, difference_spread(1.0)) if big else difference_stats(whole, 1.0)
            p = np.maximum(p, _p_values(*check)[1])
    named = holm_rejects_all(p, alpha) & np.all(mean > 0, axis=1)
    return float(np.mean(named))


def _p_values(mean: np.ndarray, se: np.ndarray, df: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """(mean, two-sided t-test p), with p = 0 for a non-zero mean without spread and 1 for zero."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, mean / np.where(se > 0, se, 1.0), np.where(mean != 0, np.inf, 0.0))
    return mean, 2 * sps.t.sf(np.abs(t), df)


def false_best(k: int, n: int, reps: int, seed: int, column: str = "All", alpha: float = 0.05) -> float:
    """How often one of ``k`` pipelines with equal score distributions is named best at ``n`` questions."""
    rng = np.random.default_rng(seed)
    return best_rate(_pipelines(rng, k, type_counts(n), reps), column, alpha)


def power(n: int, shift: float, noise: float, reps: int, seed: int, alpha: float = 0.05) -> tuple[float, float]:
    """(share of sets in which the better of two pipelines is named best, true mean difference).

    Both pipelines answer the same questions; a question's difficulty (uniform 0.2–0.8) is shared, each
    pipeline adds its own noise (normal, sd ``noise``), the better one adds ``shift``, scores are clipped
    to [0, 1]."""
    rng = np.random.default_rng(seed)
    counts = type_counts(n)
    groups = []
    for c in counts:
        difficulty = rng.uniform(0.2, 0.8, (reps, 1, c))
        offsets = np.asarray([shift, 0.0])[None, :, None]
        groups.append(np.clip(difficulty + offsets + rng.normal(0, noise, (reps, 2, c)), 0, 1))
    big = np.random.default_rng(seed + 1)
    difficulty = big.uniform(0.2, 0.8, 400_000)
    a = np.clip(difficulty + shift + big.normal(0, noise, difficulty.size), 0, 1)
    b = np.clip(difficulty + big.normal(0, noise, difficulty.size), 0, 1)
    truth = float(a.mean() - b.mean())
    named_first = _first_named(groups, alpha)
    return named_first, truth


def _first_named(groups: Sequence[np.ndarray], alpha: float) -> float:
    """Share of sets where pipeline 0 leads on ``All`` and is named best."""
    diff = np.concatenate([g[:, 0, :] - g[:, 1, :] for g in groups], axis=-1)
    mean, p = _p_values(*difference_stats(diff, 1.0))
    return float(np.mean((p <= alpha) & (mean > 0)))
