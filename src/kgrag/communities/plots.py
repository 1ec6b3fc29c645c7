"""PNG of the community size distribution per level (``kgrag graph communities --plot DIR``): matplotlib's
object API on an Agg canvas, no global figure state, safe in servers and threads."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from kgrag.communities.overview import CommunityOverview
from kgrag.core.errors import KgragError


def plot_sizes(overview: CommunityOverview, path: Path) -> Path:
    """Histogram of community sizes per level, log-scaled bins (sizes span 1 to thousands)."""
    figure = Figure(figsize=(6.5, 4.5))
    axes = figure.add_subplot()
    largest = max((max(v) for v in overview.sizes.values()), default=1)
    bins = sorted({round(1.5**i) for i in range(0, 40) if 1.5**i <= largest * 1.5} | {1, largest + 1})
    for level, values in sorted(overview.sizes.items()):
        axes.hist(values, bins=bins, histtype="step", linewidth=1.6, label=f"level {level} ({len(values)})")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("community size (entities)")
    axes.set_ylabel("communities")
    axes.set_title("Community sizes per level")
    if overview.sizes:
        axes.legend()
    FigureCanvasAgg(figure)
    figure.tight_layout()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, dpi=120)
    except OSError as exc:
        raise KgragError(f"{path}: cannot write plot ({exc.strerror})") from exc
    return path
