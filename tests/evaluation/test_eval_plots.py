"""The rate box plot shows boxes that sit exactly at 0 or 1 (a common case: a pipeline that wins every
question of a trial), instead of clipping them at the axis limits."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from kgrag.evaluation.plots import draw_rate_boxes, win_rate_boxes


def test_boxes_at_zero_and_one_stay_inside_the_axes(tmp_path: Path) -> None:
    rates = {"win A": [1.0, 1.0, 0.9, 1.0], "win B": [0.0, 0.0, 0.0, 0.1], "tie": [0.0, 0.0, 0.1, 0.0]}
    fig, ax = plt.subplots()
    try:
        draw_rate_boxes(ax, rates)
        low, high = ax.get_ylim()
        drawn = [y for line in ax.get_lines() for y in line.get_ydata()]
        assert min(drawn) == 0.0 and max(drawn) == 1.0  # medians/boxes lie on 0 and 1 ...
        assert low < 0.0 and high > 1.0  # ... and the axis leaves room around them
        assert len(ax.collections) == 3  # one set of trial points per box
    finally:
        plt.close(fig)
    path = tmp_path / "boxes.png"
    win_rate_boxes(rates, "A vs B", path)
    assert path.stat().st_size > 1000


def test_points_of_pipelines_that_score_and_cost_alike_are_drawn_apart_not_over_each_other() -> None:
    from kgrag.evaluation.plots import crowd_rows

    same = (0.8, 0.9)
    points = [same, (0.81, 0.9), (0.79, 0.91), (0.2, 0.9), (0.8, 0.5)]
    rows = crowd_rows(points, 0.15, 0.05)
    assert sorted(rows[:3]) == [0, 1, 2]  # three points on one spot: three slots
    assert rows[3] == 0 and rows[4] == 0  # far to the left, far below: where they are
