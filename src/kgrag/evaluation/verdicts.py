"""Verdicts and paired tables; kept as the import path older code uses (see :mod:`kgrag.evaluation.stats`)."""

from kgrag.evaluation.stats.verdicts import PerQuestion, compare_all, default_baseline, paired_table, verdict

__all__ = ["PerQuestion", "compare_all", "default_baseline", "paired_table", "verdict"]
