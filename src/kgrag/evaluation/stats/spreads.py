"""The building blocks of kgrag's intervals over questions: Student's t pieces, Hall's skewness-corrected
t (hall-1992), and the pseudo-observation spreads of scores that pile up at one end and of paired
differences that pile up at 0 (agresti-coull-1998's idea of adding pseudo-observations to a sparse
sample). :mod:`kgrag.evaluation.stats.intervals` puts them together per question type, ``All`` and
``Macro``; why each exists and its measured coverage: docs/results/verdict-statistics.md. Every function
works along the last axis, so the simulations run thousands of question sets at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from scipy import stats as sps


def t_half_width(se: np.ndarray | float, df: np.ndarray | float, level: float) -> np.ndarray:
    """Half the width of a two-sided t interval at ``level``."""
    return np.asarray(sps.t.ppf(1 - (1 - level) / 2, df) * se, dtype=np.float64)


def t_stats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Mean, standard error and degrees of freedom along the last axis (≥ 2 values); works on one
    sample or on a stack of simulated ones."""
    n = values.shape[-1]
    return values.mean(axis=-1), values.std(axis=-1, ddof=1) / np.sqrt(n), float(n - 1)


def skewness(values: np.ndarray) -> np.ndarray:
    """Sample skewness along the last axis (0 where the values do not vary)."""
    centred = values - values.mean(axis=-1, keepdims=True)
    sd = values.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, (centred**3).mean(axis=-1) / np.where(sd > 0, sd, 1.0) ** 3, 0.0)


def skew_t_bounds(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The t interval corrected for skewness by Hall's transformation (hall-1992), along the last axis.

    The studentized mean ``T`` of a skewed score is itself skewed. With ``a = γ / (3√n)`` (γ the sample
    skewness), ``g(T) = T + a T² + a² T³ / 3 + a / 2`` is close to symmetric, and ``g`` is monotone with
    the closed-form inverse ``((1 + 3a(x − a/2))^(1/3) − 1) / a``; the interval takes ``g⁻¹`` of Student's
    quantiles. Scores piled at 0 or at 1 make this matter: the plain t interval covers less than it claims
    on strata of 10–26 such questions.

    ``g``'s slope is ``(1 + aT)²``, which vanishes at ``T = −1/a``: near there ``g⁻¹`` runs to many
    standard errors for a small change in ``a``, so one more high score could move the far side of a
    stratum of ten past 0 (a mean that rises gets a lower bound that falls). ``|a|`` is therefore held to
    :func:`hall_limit`, the size at which ``g⁻¹`` of the quantile reaches ``|aT| = 1/2``: inside that
    region the slope stays at least 1/4 and each term of ``g`` at most half the one before, and the far
    side stays within twice Student's half-width of the mean."""
    mean, se, df = t_stats(values)
    q = float(sps.t.ppf(1 - (1 - level) / 2, df))
    limit = hall_limit(q)
    a = np.clip(skewness(values) / (3 * np.sqrt(values.shape[-1])), -limit, limit)
    safe = np.where(np.abs(a) > 1e-12, a, 1.0)

    def inverse(x: float) -> np.ndarray:
        exact = (np.cbrt(1 + 3 * safe * (x - a / 2)) - 1) / safe
        return np.where(np.abs(a) > 1e-12, exact, x - a / 2)

    return mean - inverse(q) * se, mean - inverse(-q) * se


HALL_REACH = 0.5
"""The largest ``|aT|`` at which :func:`skew_t_bounds` reads Hall's transformation: the slope
``(1 + aT)²`` stays at least ``(1 − HALL_REACH)²``."""


def hall_limit(q: float, reach: float = HALL_REACH) -> float:
    """The largest ``|a|`` for which ``g⁻¹(q)`` of :func:`skew_t_bounds` stays where ``|aT| ≤ reach``.

    On the long side ``T = reach / |a|`` gives ``g(T) = c / |a| − |a| / 2`` with
    ``c = reach (1 − reach + reach² / 3)``; setting it to ``q`` and solving the quadratic in ``|a|``
    gives ``√(q² + 2c) − q``. ``g⁻¹(q)`` grows with ``|a|`` there, so a smaller ``|a|`` stays inside."""
    c = reach * (1 - reach + reach * reach / 3)
    return float(np.sqrt(q * q + 2 * c) - q)


def heavy_tail_bounds(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Each side the farther of Hall's interval (:func:`skew_t_bounds`) and Student's t, along the last axis:
    the interval of a paired difference of an unbounded measure (tokens, milliseconds). Such differences
    have no largest size and rarely tie, so the pseudo-differences of :func:`pseudo_variance` have no scale
    to take; their tails are long. Hall's correction follows a skewed difference but, on a symmetric
    heavy-tailed one, moves with the noise of the sample skewness and covers less than it claims; Student's
    t holds there and falls short on skewed ones. The farther side of the two keeps the better of both."""
    low, high = skew_t_bounds(values, level)
    mean, se, df = t_stats(values)
    half = t_half_width(se, df, level)
    return np.minimum(low, mean - half), np.maximum(high, mean + half)


def pile_variance(values: np.ndarray, largest: float | None) -> np.ndarray:
    """Where at least half the scores sit at the sample's lowest or highest value (a type where nearly
    every recall is 0), the :func:`pseudo_variance` of the scores' distances from that pile; else 0.
    ``largest``: the width of the scores' range (the pseudo pair's size when every score is the same;
    none when it is unknown)."""
    out = np.zeros(values.shape[:-1])
    for end in (values.min(axis=-1, keepdims=True), values.max(axis=-1, keepdims=True)):
        piled = (values == end).mean(axis=-1) >= 0.5
        out = np.where(piled, np.maximum(out, pseudo_variance(values - end, largest or 0.0)), out)
    return out


def score_bounds(values: np.ndarray, level: float, largest: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Hall's interval (:func:`skew_t_bounds`) along the last axis, each side at least the t half-width
    of :func:`pile_variance`. Where most scores sit at one end, Hall's skewness rests on a handful of
    values, and when every score is 0 its interval is [0, 0]; the pseudo pair keeps "no hit in 11
    questions" from reading as certainty."""
    low, high = skew_t_bounds(values, level)
    mean, _, df = t_stats(values)
    floor = t_half_width(np.sqrt(pile_variance(values, largest) / values.shape[-1]), df, level)
    return np.minimum(low, mean - floor), np.maximum(high, mean + floor)


def score_spread(largest: float | None) -> Callable[[np.ndarray], np.ndarray]:
    """A score type's variance for ``Macro``: the sample variance, at least :func:`pile_variance`."""
    return lambda values: np.maximum(values.var(axis=-1, ddof=1), pile_variance(values, largest))


def difference_spread(largest: float) -> Callable[[np.ndarray], np.ndarray]:
    """A paired-difference type's variance for ``Macro``: :func:`pseudo_variance`."""
    return lambda values: pseudo_variance(values, largest)


def pseudo_variance(values: np.ndarray, largest: float) -> np.ndarray:
    """The sample variance of paired differences along the last axis, with two pseudo-differences ``±m``
    added: a set in which few questions differ cannot claim less spread than one more difference each
    way would give. ``m²`` is the mean square of the non-zero differences with ``largest²`` counted as one
    more of them, so it is ``largest`` when none differs and moves smoothly towards the observed sizes as
    more do (one tiny difference cannot collapse it). Only the spread uses the pseudo pair; the mean of
    the differences is left as it is."""
    n = values.shape[-1]
    squares = (values**2).sum(axis=-1)
    typical = pseudo_size(values, largest)
    augmented_mean = values.sum(axis=-1) / (n + 2)
    spread = squares + 2 * typical**2 - (n + 2) * augmented_mean**2
    return np.asarray(np.maximum(spread, 0.0) / (n + 1), dtype=np.float64)


def pseudo_size(values: np.ndarray, largest: float) -> np.ndarray:
    """The size ``m`` of :func:`pseudo_variance`'s two pseudo-differences along the last axis: the root
    mean square of the non-zero differences with ``largest`` counted as one more of them."""
    differing = np.count_nonzero(values, axis=-1)
    prior = 1 if largest > 0 else 0
    return np.asarray(np.sqrt(((values**2).sum(axis=-1) + largest**2) / np.maximum(differing + prior, 1)))


def difference_stats(values: np.ndarray, largest: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Mean, standard error and degrees of freedom of paired differences along the last axis (≥ 2
    values): the standard error of :func:`pseudo_variance`, Student's n − 1 degrees of freedom."""
    n = values.shape[-1]
    return values.mean(axis=-1), np.sqrt(pseudo_variance(values, largest) / n), float(n - 1)


def largest_possible_difference(scores: Iterable[float]) -> float:
    """The largest difference two pipelines' ``scores`` allow when their range is not known: the larger of
    their spread and their largest magnitude (scores of both signs can differ by more than either's
    magnitude); 0 without scores."""
    seen = list(scores)
    return max(max(seen) - min(seen), max(abs(v) for v in seen)) if seen else 0.0
