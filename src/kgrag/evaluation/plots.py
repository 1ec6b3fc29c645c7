"""PNG plots of evaluation reports (matplotlib, Agg backend, imported inside each function).

The rule behind them: quality is never shown without what it cost. A pipeline that hands the
generator five times the tokens can look better on recall for that reason alone, so the main plot puts
each pipeline at (context tokens, quality) and (cost, quality): a reader sees the trade-off, not a bar
that rewards length.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple


class Point(NamedTuple):
    """One pipeline's estimate on one panel: ``name`` (the legend's key: one marker and colour per name
    in every panel), cost ``x``, quality ``y``, the 95 % interval of ``y`` (None: none known) and
    ``hollow`` for the second measure of the same pipeline (drawn with an open marker)."""

    name: str
    x: float
    y: float
    ci: tuple[float, float] | None = None
    hollow: bool = False


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


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*")
CROWD_WIDTH = 0.02  # share of the x axis within which two markers hide each other, about
CROWD_HEIGHT = 0.03  # and of the y axis
NUDGE_PT = 4  # a crowded point is drawn this far right of the one before it, in points


def crowd_rows(points: Sequence[tuple[float, float]], width: float, height: float) -> list[int]:
    """For each point (x and y as shares of their axes), how many points before it, in x order, its
    marker would sit on (within ``width`` and ``height``), as a slot number: the point is drawn that
    many nudges to the right, so pipelines that score and cost alike do not hide each other."""
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


def styles(names: Sequence[str]) -> dict[str, tuple[str, str]]:
    """A (colour, marker) pair per name, in order, no two alike: the legend tells the points apart by
    both, so no label has to sit next to its point."""
    unique = list(dict.fromkeys(names))
    return {name: (f"C{i % 10}", MARKERS[i % len(MARKERS)]) for i, name in enumerate(unique)}


def _estimate(ax: Any, point: Point, look: tuple[str, str], at: tuple[float, float], **bar: Any) -> None:
    """One estimate at ``at`` with its interval (``xerr`` or ``yerr`` in ``bar``), in its name's colour and
    marker, hollow for a passages-only estimate."""
    colour, marker = look
    face = "white" if point.hollow else colour
    ax.errorbar([at[0]], [at[1]], fmt=marker, color=colour, mfc=face, capsize=3, label=point.name, elinewidth=1, **bar)


def _scatter(ax: Any, points: Sequence[Point], looks: dict[str, tuple[str, str]], xlabel: str, ylabel: str) -> bool:
    """Each point with its interval as an error bar; returns whether any was nudged aside."""
    from matplotlib.transforms import offset_copy

    top = max([1.0, *[p.ci[1] if p.ci else p.y for p in points]]) * 1.05
    right = max([1.0, *[p.x for p in points]]) * 1.2
    rows = crowd_rows([(p.x / right, p.y / top) for p in points], CROWD_WIDTH, CROWD_HEIGHT)
    for point, row in zip(points, rows, strict=True):
        colour, marker = looks[point.name]
        shift = offset_copy(ax.transData, fig=ax.figure, x=NUDGE_PT * row, y=0, units="points")
        _estimate(
            ax, point, (colour, marker), (point.x, point.y), yerr=_yerr(point.y, point.ci), alpha=0.9, transform=shift
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, top)
    ax.set_xlim(left=0, right=right)
    ax.grid(alpha=0.3)
    return any(rows)


def _legend(fig: Any, looks: dict[str, tuple[str, str]], variants: tuple[str, str] | None) -> None:
    """One entry per name (its colour and marker), then, when two measures share a panel, what a filled
    and an open marker stand for; beside the panels, so no entry covers a point."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], ls="", marker=m, color=c, label=name) for name, (c, m) in looks.items()]
    if variants:
        handles += [
            Line2D([], [], ls="", marker="o", color="grey", label=f"filled: {variants[0]}"),
            Line2D([], [], ls="", marker="o", color="grey", mfc="white", label=f"open: {variants[1]}"),
        ]
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)


def quality_vs_cost(
    panels: Sequence[tuple[str, Sequence[Point]]],
    ylabel: str,
    title: str,
    path: Path,
    variants: tuple[str, str] | None = None,
) -> None:
    """One scatter per cost axis (e.g. context tokens, latency): each pipeline a point with its 95 %
    interval, quality on y, told apart by a legend of colours and markers; ``variants`` names what
    filled and open markers stand for when a panel holds two measures per pipeline."""
    plt = _pyplot()
    looks = styles([p.name for _, points in panels for p in points])
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4), squeeze=False)
    nudged = False
    for ax, (xlabel, points) in zip(axes[0], panels, strict=True):
        nudged = _scatter(ax, points, looks, xlabel, ylabel) or nudged
    _legend(fig, looks, variants)
    note = f"\n(points that would cover each other are drawn {NUDGE_PT} pt apart sideways)" if nudged else ""
    fig.suptitle(title + note, fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


class Row(NamedTuple):
    """One pipeline's row of a forest panel: ``name`` (the legend's key), ``label`` (written beside the
    row, e.g. the pipeline and what it cost) and its ``estimates`` as points whose ``x`` is unused."""

    name: str
    label: str
    estimates: Sequence[Point]


ROW_SPREAD = 0.16  # two estimates of one row sit this far above and below its line (rows are 1 apart)


def _forest(ax: Any, rows: Sequence[Row], looks: dict[str, tuple[str, str]], xlabel: str) -> None:
    """Each row a line, top to bottom, its estimates with their intervals as horizontal error bars and
    its label as the tick beside it: a label cannot be read as another row's."""
    top = max([1.0, *[p.ci[1] if p.ci else p.y for row in rows for p in row.estimates]]) * 1.05
    for line, row in enumerate(rows):
        colour, marker = looks[row.name]
        level = len(rows) - 1 - line
        spread = [0.0] if len(row.estimates) < 2 else [ROW_SPREAD, -ROW_SPREAD]
        for point, shift in zip(row.estimates, spread, strict=False):
            _estimate(ax, point, (colour, marker), (point.y, level + shift), xerr=_yerr(point.y, point.ci))
    ax.set_yticks(range(len(rows)), [row.label for row in reversed(rows)], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlim(0, top)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)


def forest_and_cost(
    rows: Sequence[Row],
    cost: tuple[str, Sequence[Point]],
    quality: str,
    title: str,
    variants: tuple[str, str] | None = None,
) -> Any:
    """The figure (saved by :func:`save_figure`). Left: every pipeline's quality with its 95 % interval on
    a row of its own, labelled with the pipeline and what it handed over; right: quality against
    ``cost`` (its axis label and points), one marker and colour per pipeline in both panels and in the
    legend. For pipelines that spend about the same context, where a scatter against context tokens
    would pile them onto one spot."""
    plt = _pyplot()
    looks = styles([row.name for row in rows])
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, max(4.0, 0.42 * len(rows) + 1.6)))
    _forest(left, rows, looks, quality)
    nudged = _scatter(right, cost[1], looks, cost[0], quality)
    _legend(fig, looks, variants)
    note = f"\n(points that would cover each other are drawn {NUDGE_PT} pt apart sideways)" if nudged else ""
    fig.suptitle(title + note, fontsize=10)
    fig.tight_layout()
    return fig


def save_figure(fig: Any, path: Path) -> None:
    """Write ``fig`` as a PNG with its legend (beside the panels) inside the picture, and free it."""
    plt = _pyplot()
    try:
        fig.savefig(path, dpi=110, bbox_inches="tight")
    finally:
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
