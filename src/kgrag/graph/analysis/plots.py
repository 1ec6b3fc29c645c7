"""PNG plots of graph statistics (``kgrag graph stats --plot DIR``).

Figures are built with matplotlib's object API on an Agg canvas instead of ``pyplot``: no global figure
state, no display backend, safe in servers and threads.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from kgrag.core.errors import KgragError
from kgrag.graph.analysis.stats import GraphStats

_TOP_TYPES = 20


def _save(figure: Figure, path: Path) -> Path:
    FigureCanvasAgg(figure)
    figure.tight_layout()
    try:
        figure.savefig(path, dpi=120)
    except OSError as exc:
        raise KgragError(f"{path}: cannot write plot ({exc.strerror})") from exc
    return path


def plot_degree_distribution(stats: GraphStats, path: Path) -> Path:
    """Log-log scatter of how many nodes have each degree (degree 0 cannot sit on a log axis: noted)."""
    figure = Figure(figsize=(6, 4.5))
    axes = figure.add_subplot()
    points = [(d, c) for d, c in stats.degree_histogram if d > 0]
    if points:
        axes.scatter([d for d, _ in points], [c for _, c in points], s=14)
        axes.set_xscale("log")
        axes.set_yscale("log")
    axes.set_xlabel("degree")
    axes.set_ylabel("nodes")
    axes.set_title(f"Degree distribution ({stats.isolated_nodes:,} isolated nodes not shown)")
    return _save(figure, path)


def plot_component_sizes(stats: GraphStats, path: Path) -> Path:
    """How many connected components have each size (log counts: one giant, many tiny is typical)."""
    figure = Figure(figsize=(6, 4.5))
    axes = figure.add_subplot()
    sizes = stats.component_size_histogram
    if sizes:
        axes.bar([str(size) for size, _ in sizes], [count for _, count in sizes])
        axes.set_yscale("log")
        axes.tick_params(axis="x", labelrotation=90, labelsize=7)
    axes.set_xlabel("component size (nodes)")
    axes.set_ylabel("components")
    axes.set_title(f"Connected components ({stats.components:,}; largest {stats.largest_component:,})")
    return _save(figure, path)


def plot_type_histogram(stats: GraphStats, path: Path) -> Path:
    """Horizontal bars of the most frequent entity types."""
    top = stats.type_histogram[:_TOP_TYPES]
    figure = Figure(figsize=(6, max(2.5, 0.3 * len(top) + 1.2)))
    axes = figure.add_subplot()
    if top:
        axes.barh([name or "(none)" for name, _ in reversed(top)], [count for _, count in reversed(top)])
    axes.set_xlabel("entities")
    axes.set_title(f"Entity types (top {len(top)} of {len(stats.type_histogram)})")
    return _save(figure, path)


def write_stats_plots(stats: GraphStats, directory: Path) -> list[Path]:
    """Write the three PNGs into ``directory`` (created if needed) and return their paths."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KgragError(f"{directory}: cannot create plot directory ({exc.strerror})") from exc
    return [
        plot_degree_distribution(stats, directory / "degree_distribution.png"),
        plot_component_sizes(stats, directory / "component_sizes.png"),
        plot_type_histogram(stats, directory / "entity_types.png"),
    ]
