"""Intervals over questions; kept as the import path older code uses (see :mod:`kgrag.evaluation.stats`)."""

from kgrag.evaluation.stats.intervals import (
    ALL,
    MACRO,
    MIN_STRATUM,
    Bootstrap,
    Estimate,
    Interval,
    column_mean,
    estimates,
    excludes_zero,
    paired,
)

__all__ = [
    "ALL",
    "MACRO",
    "MIN_STRATUM",
    "Bootstrap",
    "Estimate",
    "Interval",
    "column_mean",
    "estimates",
    "excludes_zero",
    "paired",
]
