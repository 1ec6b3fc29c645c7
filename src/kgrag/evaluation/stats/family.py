"""Family-wise control when one pipeline is named best among several: Holm's step-down procedure.

Naming the leader *best* claims it is ahead of every other pipeline at once. Each of the k − 1 paired
tests of the leader against another pipeline is one hypothesis; Holm's procedure (holm-1979) rejects them
while keeping the chance of any false rejection at ``alpha`` whatever their dependence, and the leader is
named best only when every one of them is rejected.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def holm(p_values: Mapping[str, float | None], alpha: float) -> dict[str, bool]:
    """name → rejected at family-wise level ``alpha`` (a missing p is never rejected and stops the steps)."""
    ordered = sorted(p_values.items(), key=lambda kv: (1.0 if kv[1] is None else kv[1], kv[0]))
    rejected: dict[str, bool] = {name: False for name in p_values}
    m = len(ordered)
    for step, (name, p) in enumerate(ordered):
        if p is None or p > alpha / (m - step):
            break
        rejected[name] = True
    return rejected


def adjusted(p_values: Mapping[str, float | None]) -> dict[str, float | None]:
    """Holm-adjusted p-values (monotone, capped at 1); None stays None."""
    ordered = sorted(((n, p) for n, p in p_values.items() if p is not None), key=lambda kv: (kv[1], kv[0]))
    out: dict[str, float | None] = {name: None for name in p_values}
    running = 0.0
    m = len(ordered)
    for step, (name, p) in enumerate(ordered):
        running = max(running, min(1.0, (m - step) * p))
        out[name] = running
    return out


def holm_rejects_all(p_values: np.ndarray, alpha: float) -> np.ndarray:
    """Along the last axis: True where Holm rejects every hypothesis (the largest p ≤ alpha, the next ≤
    alpha / 2, …), vectorised for simulations; NaN p-values are never rejected."""
    ordered = np.sort(np.nan_to_num(p_values, nan=1.0), axis=-1)
    m = ordered.shape[-1]
    thresholds = alpha / (m - np.arange(m))
    return np.asarray(np.all(ordered <= thresholds, axis=-1))
