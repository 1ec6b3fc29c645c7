"""Intervals of unbounded measures (tokens, milliseconds) on their own scale: a stored run's paired
difference of context tokens with a true difference of about 40 gets an interval around 40 that excludes
0, one with no difference gets one around 0 far wider than ±1, bounded metrics keep their range, and the
interval of a skewed, heavy-tailed latency difference covers its true mean at about its level in a seeded
simulation."""

from __future__ import annotations

import numpy as np

from kgrag.core.eval_records import EvalRunRecord, EvalScore
from kgrag.evaluation.aggregate import ALL, MACRO
from kgrag.evaluation.intervals import Bootstrap
from kgrag.evaluation.session import finish
from kgrag.evaluation.stats.intervals import is_unbounded, paired, score_range
from kgrag.evaluation.stats.spreads import heavy_tail_bounds

TYPES = ("Fact", "Reason")


def _scores(metric: str, per_pipeline: dict[str, np.ndarray]) -> list[EvalScore]:
    return [
        EvalScore("r", 0, pipeline, f"q{i:03d}", TYPES[i % 2], metric, float(v))
        for pipeline, values in per_pipeline.items()
        for i, v in enumerate(values)
    ]


def _run(scores: list[EvalScore]) -> dict[str, dict[str, dict[str, object]]]:
    record = EvalRunRecord("r", "run", 0.0, "d", payload={"id": "r", "plan": {"pipelines": ["dense", "graph"]}})
    paired_table = finish(record, scores).stats["paired"]
    return {metric: {p: dict(cells[ALL]) for p, cells in rows.items()} for metric, rows in paired_table.items()}


def _tokens(shift: float, seed: int) -> list[EvalScore]:
    """Context tokens of 40 questions: dense hands over 300–700 tokens, graph the same plus ``shift`` and
    its own noise."""
    rng = np.random.default_rng(seed)
    dense = rng.integers(300, 700, 40).astype(float)
    graph = np.round(dense + shift + rng.normal(0, 25, 40))
    recall = rng.uniform(0, 1, 40)
    return [
        *_scores("cost.context_tokens", {"dense": dense, "graph": graph}),
        *_scores("evidence-recall", {"dense": recall, "graph": np.clip(recall + 0.1, 0, 1)}),
    ]


def test_a_token_difference_of_about_40_gets_an_interval_around_it() -> None:
    cell = _run(_tokens(40.0, 0))["cost.context_tokens"]["graph"]
    low, high = cell["ci95"]  # type: ignore[misc]
    mean = float(cell["mean"])  # type: ignore[arg-type]
    assert 30 < mean < 50
    assert 0 < low < mean < high and high - low > 2  # not cut to a proportion's ±1
    assert low < 40 < high


def test_no_token_difference_gets_an_interval_around_zero_on_the_token_scale() -> None:
    cell = _run(_tokens(0.0, 1))["cost.context_tokens"]["graph"]
    low, high = cell["ci95"]  # type: ignore[misc]
    assert low < float(cell["mean"]) < high  # type: ignore[arg-type]
    assert low < -1 and high > 1 and low < 0 < high


def test_a_bounded_metric_keeps_its_range() -> None:
    cell = _run(_tokens(40.0, 0))["evidence-recall"]["graph"]
    low, high = cell["ci95"]  # type: ignore[misc]
    assert -1 <= low <= high <= 1
    assert score_range("evidence-recall") == (0.0, 1.0) and not is_unbounded("evidence-recall")
    assert score_range("cost.latency_ms") is None and is_unbounded("cost.latency_ms")


def _latencies(rng: np.random.Generator, shape: tuple[int, int], shift: float) -> tuple[np.ndarray, np.ndarray]:
    """Latencies with a long right tail: a per-question base (lognormal, sd 1 on the log scale), each
    pipeline its own multiplicative noise, the first ``shift`` ms slower."""
    base = rng.lognormal(3.0, 1.0, shape)
    return base * rng.lognormal(0, 0.4, shape) + shift, base * rng.lognormal(0, 0.4, shape)


def test_the_latency_difference_interval_covers_its_true_mean_at_about_its_level() -> None:
    rng = np.random.default_rng(7)
    reps, n, shift = 2000, 20, 3.0  # the noise is the same on both sides, so the true mean difference is shift
    a, b = _latencies(rng, (reps, n), shift)
    low, high = heavy_tail_bounds(a - b, 0.95)
    coverage = float(((low <= shift) & (shift <= high)).mean())
    assert 0.92 <= coverage <= 0.99
    skewed = rng.lognormal(0.0, 1.0, (reps, n))  # a one-sided difference, mean e^0.5
    low, high = heavy_tail_bounds(skewed, 0.95)
    assert float(((low <= np.exp(0.5)) & (np.exp(0.5) <= high)).mean()) >= 0.89


def test_paired_differences_of_a_cost_are_neither_cut_nor_pseudo_widened() -> None:
    rng = np.random.default_rng(3)
    a, b = _latencies(rng, (1, 30), 100.0)
    values = {name: {f"q{i}": (TYPES[i % 2], float(v)) for i, v in enumerate(x[0])} for name, x in (("a", a), ("b", b))}
    found = paired(values["a"], values["b"], Bootstrap(), unbounded=True)
    for column in (ALL, MACRO, *TYPES):
        low, high = found[column].ci95 or (0.0, 0.0)
        assert low < (found[column].mean or 0.0) < high
    assert found[ALL].ci95 is not None and found[ALL].ci95[0] > 1.0
