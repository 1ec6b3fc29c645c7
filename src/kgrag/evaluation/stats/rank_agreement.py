"""How alike two question sets rank the same pipelines: Kendall τ between the pipelines' mean scores on
each set, with a bootstrap interval that resamples the questions of both sets.

Used where a report compares rankings, not scores: the generated-questions caveat (a set holding two kinds
of generated question says how alike the two kinds rank its pipelines) and the benches that measure a
generated set against a hand-written one. With a handful of pipelines a few swapped places move τ far,
so the interval matters more than the point.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence

from scipy import stats as sps

Scores = dict[str, list[float]]
"""Pipeline → its score on each question of a set, the questions in the same order for every pipeline."""


def kendall_tau(a: dict[str, float], b: dict[str, float]) -> float | None:
    """τ-b between two pipeline → mean score maps over the pipelines both hold; None when it is undefined
    (fewer than two pipelines, or one side all ties)."""
    names = sorted(a.keys() & b.keys())
    if len(names) < 2:
        return None
    value = float(sps.kendalltau([a[p] for p in names], [b[p] for p in names]).statistic)
    return None if math.isnan(value) else value


def means(scores: Scores, rows: Sequence[int] | None = None) -> dict[str, float]:
    """Each pipeline's mean score, over the questions ``rows`` names (repeats allowed) when given."""
    return {p: statistics.fmean(v if rows is None else [v[i] for i in rows]) for p, v in scores.items()}


def size(scores: Scores) -> int:
    """How many questions the set holds (0 without a pipeline)."""
    return len(next(iter(scores.values()), []))


def resampled_rows(n: int, rng: random.Random) -> list[int]:
    """One bootstrap draw: ``n`` question indices with replacement."""
    return [rng.randrange(n) for _ in range(n)]


def tau_interval(first: Scores, second: Scores, rng: random.Random, samples: int = 1000) -> tuple[float, float] | None:
    """Percentile 95% interval of τ when both sets' questions are resampled with replacement (undefined
    draws count as 0: no agreement shown); None when a set has no question."""
    n_first, n_second = size(first), size(second)
    if not (n_first and n_second):
        return None
    taus = []
    for _ in range(samples):
        rows_first, rows_second = resampled_rows(n_first, rng), resampled_rows(n_second, rng)
        taus.append(kendall_tau(means(first, rows_first), means(second, rows_second)) or 0.0)
    taus.sort()
    return taus[int(0.025 * samples)], taus[int(0.975 * samples) - 1]
