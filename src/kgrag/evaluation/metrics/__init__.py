"""Answer and retrieval metrics, each in an LLM-free and an LLM-judged version (chosen by name through
the ``metric`` registry; see docs/evaluation.md for the formulas side by side)."""

from kgrag.evaluation.metrics.base import Measured, Metric, MetricTools, Sample, metric_registry

__all__ = ["Measured", "Metric", "MetricTools", "Sample", "metric_registry"]
