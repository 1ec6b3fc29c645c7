"""How many questions separate two pipelines: the power of the paired t-test that names a best.

From a pilot run, the standard deviation of the per-question difference between two pipelines (the
*paired* SD, which is small when the pipelines find the same questions easy; taken with the two
pseudo-differences the verdict's test counts, :func:`.spreads.pseudo_variance`) and a difference worth
finding give the smallest number of questions at which the verdict's paired test finds that difference
with the asked power. With k pipelines compared, Holm's procedure tests the closest rival at ``alpha``
only after the others at smaller levels; planning at ``alpha / (k − 1)`` (Bonferroni, Holm's first
step) is the safe side.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from kgrag.evaluation.stats.spreads import largest_possible_difference, pseudo_variance

MAX_QUESTIONS = 1_000_000


def power_at(n: int, difference: float, sd: float, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test at ``n`` questions for a true mean difference ``difference``
    with per-question difference SD ``sd`` (the noncentral t; detections in the wrong direction are not
    counted)."""
    if n < 2:
        return 0.0
    if sd <= 0:
        return 1.0 if difference != 0 else 0.0
    df = n - 1
    critical = float(sps.t.ppf(1 - alpha / 2, df))
    return float(sps.nct.sf(critical, df, abs(difference) * np.sqrt(n) / sd))


def questions_needed(difference: float, sd: float, power: float = 0.8, alpha: float = 0.05) -> int | None:
    """The smallest n whose :func:`power_at` reaches ``power``; None when ``difference`` is 0."""
    if difference == 0:
        return None
    if sd <= 0:
        return 2
    low, high = 2, 2
    while power_at(high, difference, sd, alpha) < power:
        low, high = high, high * 2
        if high > MAX_QUESTIONS:
            return None
    while low < high:
        middle = (low + high) // 2
        if power_at(middle, difference, sd, alpha) >= power:
            high = middle
        else:
            low = middle + 1
    return high


@dataclass(frozen=True)
class Plan:
    """One pipeline against the baseline: what the pilot measured and the questions needed."""

    pipeline: str
    baseline: str
    pilot_questions: int
    observed_difference: float
    paired_sd: float
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
    SD over the questions both scored and the questions needed to find ``difference`` (and the observed
    difference) with ``power``, the test at ``alpha / (k − 1)`` for k pipelines."""
    others = [p for p in pilot if p != baseline]
    level = alpha / max(len(others), 1)
    plans = []
    for pipeline in others:
        shared = sorted(set(pilot[pipeline]) & set(pilot[baseline]))
        diffs = np.asarray([pilot[pipeline][q] - pilot[baseline][q] for q in shared], dtype=np.float64)
        if len(diffs) < 2:
            continue
        largest = largest_possible_difference(pilot[p][q] for p in (pipeline, baseline) for q in shared)
        sd, observed = float(np.sqrt(pseudo_variance(diffs, largest))), float(diffs.mean())
        plans.append(
            Plan(
                pipeline,
                baseline,
                len(diffs),
                observed,
                sd,
                difference,
                questions_needed(difference, sd, power, level),
                power_at(len(diffs), difference, sd, level),
                questions_needed(observed, sd, power, level),
            )
        )
    return plans
