"""Kendall τ between two question sets' rankings of the same pipelines, and its bootstrap interval."""

from __future__ import annotations

import random

from kgrag.evaluation.stats.rank_agreement import kendall_tau, means, tau_interval


def test_tau_is_one_for_the_same_order_and_undefined_without_an_order() -> None:
    assert kendall_tau({"a": 0.9, "b": 0.5, "c": 0.1}, {"a": 0.6, "b": 0.4, "c": 0.0}) == 1.0
    assert kendall_tau({"a": 0.9, "b": 0.5, "c": 0.1}, {"a": 0.0, "b": 0.4, "c": 0.6}) == -1.0
    assert kendall_tau({"a": 0.9, "b": 0.5}, {"a": 0.3, "b": 0.3}) is None  # one side all ties
    assert kendall_tau({"a": 0.9}, {"a": 0.3}) is None
    assert kendall_tau({"a": 0.9, "b": 0.5, "x": 1.0}, {"a": 0.6, "b": 0.4, "y": 0.0}) == 1.0  # shared ones


def test_the_interval_holds_the_point_and_narrows_with_more_questions() -> None:
    rng = random.Random(3)

    def draw(n: int) -> dict[str, list[float]]:
        return {p: [min(1.0, max(0.0, rng.gauss(level, 0.3))) for _ in range(n)] for p, level in
                (("a", 0.7), ("b", 0.6), ("c", 0.5), ("d", 0.4))}  # fmt: skip

    small, large = (draw(20), draw(20)), (draw(400), draw(400))
    widths = []
    for first, second in (small, large):
        interval = tau_interval(first, second, random.Random(0), samples=400)
        assert interval is not None
        lo, hi = interval
        value = kendall_tau(means(first), means(second))
        assert value is not None and lo <= value <= hi
        widths.append(hi - lo)
    assert widths[1] < widths[0] and tau_interval({"a": []}, small[0], random.Random(0)) is None
