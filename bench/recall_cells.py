"""One table cell for the retrieval benches: a mean with its 95% interval, cut to the range the mean can take.

A recall lies in [0, 1] and a paired difference of two recalls in [-1, 1]. A recall gets the skew-adjusted t
interval of :func:`kgrag.evaluation.stats.intervals.t_estimate`, a paired difference the interval of
:func:`~kgrag.evaluation.stats.intervals.difference_estimate`, as ``kgrag eval retrieval`` gives them; either
can reach past those bounds when nearly every value is 0 or 1, and
:func:`~kgrag.evaluation.stats.intervals.clipped` cuts it back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgrag.evaluation.stats.intervals import clipped, difference_estimate, t_estimate


def cell(values: Sequence[float] | np.ndarray, signed: bool = False, digits: int = 3) -> str:
    """``mean [low, high]``; ``signed`` marks a paired difference (a sign on each figure, bounds ±1)."""
    bounds = (-1.0, 1.0) if signed else (0.0, 1.0)
    array = np.asarray(values, dtype=float)
    est = clipped(difference_estimate(array, 0.95, 1.0) if signed else t_estimate(array, 0.95), bounds)
    form = f"+.{digits}f" if signed else f".{digits}f"
    ci = f" [{est.ci95[0]:{form}}, {est.ci95[1]:{form}}]" if est.ci95 else ""
    return f"{est.mean:{form}}{ci}" if est.mean is not None else "–"
