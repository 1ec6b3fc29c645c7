"""PNG plots of evaluation reports (matplotlib, Agg backend, imported inside each function).

The rule behind them: quality is never shown without what it cost. A pipeline that hands the
generator five times the tokens can look better on recall for that reason alone, so the main plot puts
each pipeline at (context tokens, quality) and (cost, quality): a reader sees the trade-off, not a bar
that rewards length.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

Point = tuple[str, float, float, tuple[float, float] | None]  # label, x, y, 95 % interval of y


def _yerr(y: float, ci: tuple[float, float] | None) -> list[list[float]]:
    """Matplotlib's asymmetric error bar (below, above) for an interval; none when there is no interval."""
    if ci is None:
        return [[0.0], [0.0]]
    return [[max(0.0, y - ci[0])], [max(0.0, ci[1] - y)]]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


LABEL_WIDTH = 0.15  # share of the x axis a point's label takes, about
LABEL_HEIGHT = 0.05  # and of the y axis
LABEL_STEP_PT = 11  # a crowded label sits this far above the one before it


def label_rows(points: Sequence[tuple[float, float]], width: float, height: float) -> list[int]:
    """For each point (x and y as shares of their axes), how many labels to stack below its own: one per
    point before it, in x order, whose label would overlap its label. Pipelines that score and cost
    alike would otherwise write their names over each other."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1], i))
    rows = [0] * len(points)
    placed: list[int] = []
    for i in order:
        x, y = points[i]
        near = [j for j in placed if abs(points[j][0] - x) < width and abs(points[j][1] - y) < height]
        taken = {rows[j] for j in near}
        rows[i] = next(row for row in range(len(near) + 1) if row not in taken)
        placed.append(i)
    return rows


def _scatter(ax: Any, points: Sequence[Point], xlabel: str, ylabel: str) -> None:
    top = max([1.0, *[ci[1] if ci else y for _, _, y, ci in points]]) * 1.05
    right = max([1.0, *[x for _, x, _, _ in points]]) * 1.2
    rows = label_rows([(x / right, y / top) for _, x, y, _ in points], LABEL_WIDTH, LABEL_HEIGHT)
    for (label, x, y, ci), row in zip(points, rows, strict=True):
        drawn = ax.errorbar([x], [y], yerr=_yerr(y, ci), fmt="o", capsize=3)
        color = drawn.lines[0].get_color()  # a stacked label is told from its neighbours by its point's colour
        offset = (5, 5 + LABEL_STEP_PT * row)
        ax.annotate(label, (x, y), textcoords="offset points", xytext=offset, fontsize=8, color=color)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, top)
    ax.set_xlim(left=0, right=right)
    ax.grid(alpha=0.3)


def quality_vs_cost(panels: Sequence[tuple[str, Sequence[Point]]], ylabel: str, title: str, path: Path) -> None:
    """One scatter per cost axis (e.g. context tokens, latency): each pipeline a point, quality on y."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4), squeeze=False)
    for ax, (xlabel, points) in zip(axes[0], panels, strict=True):
        _scatter(ax, points, xlabel, ylabel)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


Bar = tuple[float, tuple[float, float] | None]  # mean, 95 % interval


def grouped_bars(
    groups: Sequence[str], series: Mapping[str, Sequence[Bar]], ylabel: str, title: str, path: Path
) -> None:
    """Bars per group (question type) and series (pipeline): the mean with its 95 % interval as error bar."""
    plt = _pyplot()
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(6, 1.7 * len(groups)), 4))
    for offset, (name, values) in enumerate(series.items()):
        xs = [i + offset * width for i in range(len(groups))]
        errors = [_yerr(mean, ci) for mean, ci in values]
        yerr = [[e[0][0] for e in errors], [e[1][0] for e in errors]]
        ax.bar(xs, [v[0] for v in values], width, yerr=yerr, capsize=2, label=name)
    ax.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(groups))], groups, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def draw_rate_boxes(ax: Any, rates: Mapping[str, Sequence[float]]) -> None:
    """Box plots of rates in [0, 1] with every trial drawn as a point. The axis runs a little past 0 and
    1: rates are often exactly 0 or 1, and a box or whisker lying on the axis limit would be hidden."""
    values = [list(v) for v in rates.values()]
    ax.boxplot(values, tick_labels=list(rates.keys()), widths=0.5)
    for i, trial_rates in enumerate(values, start=1):
        ax.scatter([i] * len(trial_rates), trial_rates, s=10, alpha=0.5, zorder=3)
    ax.set_ylim(-0.05, 1.05)


def win_rate_boxes(rates: Mapping[str, Sequence[float]], title: str, path: Path) -> None:
    """Box plots of per-trial rates (win A, win B, tie), as zeng-unbiased-eval reports them."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    draw_rate_boxes(ax, rates)
    ax.set_ylabel("rate over questions, one point per trial")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def relative_heatmap(names: Sequence[str], matrix: Sequence[Sequence[float | None]], path: Path) -> None:
    """Relative win rate, row minus column (zeng-unbiased-eval): positive means the row wins."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(1.2 * len(names) + 3, 1.0 * len(names) + 2))
    values = [[float("nan") if v is None else v for v in row] for row in matrix]
    image = ax.imshow(values, cmap="RdBu", vmin=-1, vmax=1)
    ax.set_xticks(range(len(names)), names, rotation=30, fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            if v is not None:
                ax.text(j, i, f"{v:+.2f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, label="relative win rate (row − column)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
