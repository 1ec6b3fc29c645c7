"""How many questions separate two pipelines: the power of the paired t-test that names a best.

From a pilot run, the standard deviation of the per-question difference between two pipelines (the
*paired* SD, which is small when the pipelines find the same questions easy) and a difference worth
finding give the smallest number of questions at which the verdict's paired test finds that difference
with the asked power. The verdict's test adds two pseudo-differences to its spread
(:func:`.spreads.pseudo_variance`), deliberately conservative where few questions differ; the planner
counts them at the size being planned, where they weigh 2 in n + 2, instead of taking the pilot's
inflated spread as the questions' own: the pilot's plain SD estimates the spread of the questions,
and the pseudo pair's share of the test's spread shrinks as questions are added. With k pipelines
compared, Holm's procedure tests the closest rival at ``alpha`` only after the others at smaller levels;
planning at ``alpha / (k − 1)`` (Bonferroni, Holm's first step) is the safe side.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from kgrag.evaluation.stats.spreads import largest_possible_difference, pseudo_size

MAX_QUESTIONS = 1_000_000


def verdict_sd(n: int, sd: float, pseudo: float | None, difference: float = 0.0) -> float:
    """The per-question SD the verdict's paired test works with at ``n`` questions whose differences have
    SD ``sd`` and mean ``difference``: ``sd`` itself for the plain t-test (``pseudo`` None), else the
    spread of :func:`.spreads.pseudo_variance` with its two pseudo-differences of size ``pseudo``,
    ``((n − 1) sd² + 2 pseudo² + 2 n Δ² / (n + 2)) / (n + 1)``."""
    if pseudo is None:
        return sd
    variance = ((n - 1) * sd * sd + 2 * pseudo * pseudo + 2 * n * difference * difference / (n + 2)) / (n + 1)
    return float(np.sqrt(variance))


def power_at(n: int, difference: float, sd: float, alpha: float = 0.05, pseudo: float | None = None) -> float:
    """Power of the two-sided paired t-test at ``n`` questions for a true mean difference ``difference``
    with per-question difference SD ``sd`` (the noncentral t; detections in the wrong direction are not
    counted). ``pseudo``: the size of the verdict's two pseudo-differences (:func:`verdict_sd`); None for
    the plain t-test."""
    if n < 2:
        return 0.0
    spread = verdict_sd(n, sd, pseudo, difference)
    if spread <= 0:
        return 1.0 if difference != 0 else 0.0
    df = n - 1
    critical = float(sps.t.ppf(1 - alpha / 2, df))
    return float(sps.nct.sf(critical, df, abs(difference) * np.sqrt(n) / spread))


def questions_needed(
    difference: float, sd: float, power: float = 0.8, alpha: float = 0.05, pseudo: float | None = None
) -> int | None:
    """The smallest n whose :func:`power_at` reaches ``power``; None when ``difference`` is 0."""
    if difference == 0:
        return None
    if verdict_sd(2, sd, pseudo, difference) <= 0:
        return 2
    low, high = 2, 2
    while power_at(high, difference, sd, alpha, pseudo) < power:
        low, high = high, high * 2
        if high > MAX_QUESTIONS:
            return None
    while low < high:
        middle = (low + high) // 2
        if power_at(middle, difference, sd, alpha, pseudo) >= power:
            high = middle
        else:
            low = middle + 1
    return high


@dataclass(frozen=True)
class Plan:
    """One pipeline against the baseline: what the pilot measured and the questions needed.
    ``paired_sd``: the plain SD of the per-question differences; ``pseudo_difference``: the size of the
    verdict test's two pseudo-differences on the pilot; ``power_now``: the pilot's power for
    ``difference`` (not for the observed difference)."""

    pipeline: str
    baseline: str
    pilot_questions: int
    observed_difference: float
    paired_sd: float
    pseudo_difference: float
    difference: float
    questions: int | None
    power_now: float
    questions_for_observed: int | None

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def plan(
    pilot: Mapping[str, Mapping[str, float]],
    baseline: str,
    difference: float,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
) -> list[Plan]:
    """``pilot``: pipeline → question id → score. For every pipeline other than ``baseline``: the paired
    SD over the questions both scored and the questions needed for the verdict's test (its pseudo pair
    included) to find ``difference`` (and the observed difference) with ``power``, the test at
    ``alpha / (k − 1)`` for k pipelines."""
    others = [p for p in pilot if p != baseline]
    level = alpha / max(len(others), 1)
    plans = []
    for pipeline in others:
        shared = sorted(set(pilot[pipeline]) & set(pilot[baseline]))
        diffs = np.asarray([pilot[pipeline][q] - pilot[baseline][q] for q in shared], dtype=np.float64)
        if len(diffs) < 2:
            continue
        largest = largest_possible_difference(pilot[p][q] for p in (pipeline, baseline) for q in shared)
        sd, observed = float(diffs.std(ddof=1)), float(diffs.mean())
        pseudo = float(pseudo_size(diffs, largest))
        plans.append(
            Plan(
                pipeline,
                baseline,
                len(diffs),
                observed,
                sd,
                pseudo,
                difference,
                questions_needed(difference, sd, power, level, pseudo),
                power_at(len(diffs), difference, sd, level, pseudo),
                questions_needed(observed, sd, power, level, pseudo),
            )
        )
    return plans
