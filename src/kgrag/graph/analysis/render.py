"""Human renderings of :class:`GraphStats`: markdown for reports, rich tables for the terminal.

Kept apart from the computation so reports (denoising before/after, evaluation) and the CLI show the
same numbers the same way.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table

from kgrag.graph.analysis.stats import GraphStats

_TOP_TYPES = 15


def _fmt(value: float | int) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:.4f}"


def _summary_rows(stats: GraphStats) -> list[tuple[str, str]]:
    rows = [(name, _fmt(value)) for name, value in stats.headline().items()]
    rows.insert(6, ("median component size", _fmt(stats.median_component_size)))
    rows.append(("max degree", _fmt(stats.max_degree)))
    return rows


def stats_markdown(stats: GraphStats, title: str = "Graph statistics") -> str:
    """A markdown section: summary table, top hubs, entity types and the degree distribution."""
    lines = [f"## {title}", "", "| measure | value |", "|---|---:|"]
    lines += [f"| {name} | {value} |" for name, value in _summary_rows(stats)]
    lines += [
        "",
        f"Clustering: {stats.clustering_convention}.",
        "",
        "### Top hubs",
        "",
        "| entity | type | degree |",
        "|---|---|---:|",
    ]
    lines += [f"| {_cell(hub.name)} | {_cell(hub.type)} | {hub.degree} |" for hub in stats.top_hubs]
    lines += ["", "### Entity types", "", "| type | entities |", "|---|---:|"]
    lines += [f"| {_cell(name)} | {count:,} |" for name, count in stats.type_histogram[:_TOP_TYPES]]
    if len(stats.type_histogram) > _TOP_TYPES:
        rest = sum(count for _, count in stats.type_histogram[_TOP_TYPES:])
        lines.append(f"| *{len(stats.type_histogram) - _TOP_TYPES} other types* | {rest:,} |")
    lines += ["", "### Degree distribution", "", "| degree | nodes |", "|---:|---:|"]
    lines += [f"| {degree} | {count:,} |" for degree, count in stats.degree_histogram]
    return "\n".join(lines) + "\n"


def comparison_markdown(before: GraphStats, after: GraphStats, labels: tuple[str, str] = ("before", "after")) -> str:
    """Side-by-side headline numbers, e.g. before/after denoising, with the relative change."""
    lines = [f"| measure | {labels[0]} | {labels[1]} | change |", "|---|---:|---:|---:|"]
    after_values = after.headline()
    for name, old in before.headline().items():
        new = after_values[name]
        change = f"{(new - old) / old:+.1%}" if old else "–"
        lines.append(f"| {name} | {_fmt(old)} | {_fmt(new)} | {change} |")
    return "\n".join(lines) + "\n"


def headline_markdown(stats: GraphStats, label: str = "before") -> str:
    """The headline numbers alone in one column, e.g. before a planned denoising run that has no after."""
    lines = [f"| measure | {label} |", "|---|---:|"]
    lines += [f"| {name} | {_fmt(value)} |" for name, value in stats.headline().items()]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Keep markdown tables intact whatever an entity is called."""
    return " ".join(text.replace("|", "\\|").split())


def stats_tables(stats: GraphStats) -> Group:
    """Rich renderables for the terminal: summary, hubs and types side by side in one group."""
    summary = Table("measure", "value", title="Graph", title_justify="left")
    for name, value in _summary_rows(stats):
        summary.add_row(name, value)
    hubs = Table("entity", "type", "degree", title="Top hubs", title_justify="left")
    for hub in stats.top_hubs:
        hubs.add_row(hub.name, hub.type, str(hub.degree))
    types = Table("type", "entities", title="Entity types", title_justify="left")
    for name, count in stats.type_histogram[:_TOP_TYPES]:
        types.add_row(name, f"{count:,}")
    degrees = Table("degree", "nodes", title="Degree distribution", title_justify="left", min_width=24)
    for degree, count in stats.degree_histogram:
        degrees.add_row(str(degree), f"{count:,}")
    return Group(summary, hubs, types, degrees)
