"""`kgrag graph communities` and `kgrag graph report ID`: build and inspect the community hierarchy.

Registered onto ``graph_app`` in :mod:`kgrag.cli.app` with one line each. The bodies parse, call
``ws.communities`` and print; igraph, matplotlib and the workspace load inside the commands.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from kgrag.cli.errors import exit_if_incomplete, guarded
from kgrag.cli.notes import StderrNotes
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.core.progress import Progress

if TYPE_CHECKING:  # types only
    from kgrag.communities.overview import CommunityOverview
    from kgrag.core.community_records import CommunityReport


def _levels_table(overview: CommunityOverview) -> Table:
    table = Table(title="Communities per level (0 = finest)")
    for column in ("level", "communities", "modularity", "min", "median", "mean", "max", "below min size"):
        table.add_column(column, justify="right")
    for lv in overview.levels:
        table.add_row(
            str(lv.level),
            f"{lv.communities:,}",
            f"{lv.modularity:.3f}",
            str(lv.min_size),
            f"{lv.median_size:g}",
            f"{lv.mean_size:g}",
            str(lv.max_size),
            f"{lv.below_min:,}",
        )
    return table


NAIVE_CALLS = "reports_naive_calls"  # what writing every report by LLM would cost: shown beside real calls only


def _print_overview(
    console: Console, overview: CommunityOverview, built: dict[str, int], llm_used: bool = False
) -> None:
    if not overview.levels and overview.entities:
        console.print(
            f"no communities built yet for the {overview.entities:,} entities of the graph; "
            "run `kgrag graph communities` to build them"
        )
        return
    if not overview.levels:
        console.print("no communities: the graph is empty; build it with `kgrag index` first")
        return
    console.print(_levels_table(overview))
    methods = ", ".join(f"{n:,} {m}" for m, n in overview.reports.items()) or "none"
    console.print(f"reports: {overview.report_count:,} ({methods})")
    if overview.largest:
        largest = Table(title="Largest communities (`kgrag graph report N` or `ID` shows one)")
        largest.add_column("#")
        for column in ("id", "level", "entities", "title"):
            largest.add_column(column)
        for rank, (cid, level, size, title) in enumerate(overview.largest, start=1):
            largest.add_row(str(rank), cid, str(level), f"{size:,}", title)
        console.print(largest)
    shown = {k: v for k, v in built.items() if llm_used or k != NAIVE_CALLS}
    if shown:
        console.print("this run: " + ", ".join(f"{k} {v:,}" for k, v in shown.items()))


@guarded
def communities_command(
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Run community detection even if the graph did not change.")
    ] = False,
    show: Annotated[bool, typer.Option("--show", help="Only show what is stored; build nothing.")] = False,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Write the size distribution PNG into this directory.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Build (or update) hierarchical communities and their reports; show levels, sizes and modularity."""
    console = new_console()
    built: dict[str, int] = {}
    llm_lines: list[str] = []
    incomplete: list[str] = []
    with open_workspace(workspace) as ws:
        if not show:
            reporter: AbstractContextManager[Progress]
            if as_json:  # no progress bars in machine-readable output
                reporter = nullcontext(StderrNotes())
            else:
                from kgrag.cli.progress import console_progress

                reporter = console_progress(console)
            with reporter as progress:
                result = ws.communities.build(rebuild=rebuild, progress=progress)
            built, llm_lines, incomplete = result.report.communities, result.llm_lines, result.report.incomplete
        overview = ws.communities.overview()
        plotted = ws.communities.plot(plot) if plot is not None else None
    if as_json:
        payload = {**overview.to_dict(), "run": built, "llm": llm_lines, "plot": str(plotted) if plotted else None}
        typer.echo(json.dumps(payload, indent=2))
    else:
        _print_overview(console, overview, built, llm_used=bool(llm_lines))
        for line in llm_lines:
            console.print(f"llm {line}")
        if plotted is not None:
            console.print(f"wrote {plotted}")
    exit_if_incomplete(incomplete)


def _print_report(console: Console, report: CommunityReport, names: dict[str, str]) -> None:
    console.print(report.title, style="bold")
    console.print(f"{report.community_id} · level {report.level} · rating {report.rating:g} · {report.method}")
    console.print(report.summary)
    for number, finding in enumerate(report.findings, start=1):
        console.print(f"{number}. {finding.summary}" + (f" {finding.explanation}" if finding.explanation else ""))
        cited = [names.get(ref, ref) for ref in finding.refs]
        if cited:
            console.print(f"   cites: {', '.join(cited)}")
    if report.chunk_ids:
        console.print(f"sources: {', '.join(report.chunk_ids[:10])}")


@guarded
def report_command(
    community_id: Annotated[
        str,
        typer.Argument(help="Community id (from `kgrag graph communities` or a query), or N: the N-th largest listed."),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Show one community's report: title, summary, key findings with what they cite, rating."""
    with open_workspace(workspace) as ws:
        report = ws.communities.report(community_id)
        names = ws.communities.entity_names([r for f in report.findings for r in f.refs])
    if as_json:
        typer.echo(json.dumps({**asdict(report), "text": report.text}, indent=2))
        return
    _print_report(new_console(), report, names)
