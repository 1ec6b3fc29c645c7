"""`kgrag graph ...`: statistics, export (GraphML, Neo4j) and import (LightRAG, GraphML) of the graph.

The bodies only parse options and print; the work lives in :mod:`kgrag.graph`, imported inside the
commands so that ``kgrag --help`` and unrelated commands do not pay for igraph and matplotlib.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.text import Text

from kgrag.cli.denoise_commands import denoise_command, undo_denoise_command
from kgrag.cli.errors import guarded
from kgrag.cli.notes import StderrNotes
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.core.errors import KgragError

if TYPE_CHECKING:  # types only; the graph modules load inside the commands
    from kgrag.graph.io.report import ImportReport
    from kgrag.workspace import Workspace

graph_app = typer.Typer(no_args_is_help=True, help="Knowledge-graph statistics, export and import.")


class ExportFormat(StrEnum):
    GRAPHML = "graphml"
    NEO4J = "neo4j"


class ImportSource(StrEnum):
    LIGHTRAG = "lightrag"
    GRAPHML = "graphml"


@graph_app.command("stats")
@guarded
def stats_command(
    plot: Annotated[Path | None, typer.Option("--plot", help="Write PNG plots into this directory.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    top: Annotated[int, typer.Option("--top", min=0, help="How many hubs to list.")] = 10,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Nodes, edges, degrees, clustering, components, hubs and entity types of the graph."""
    with open_workspace(workspace) as ws:
        stats = ws.graph.stats(top)
    plots: list[Path] = []
    if plot is not None:
        from kgrag.graph.analysis.plots import write_stats_plots

        plots = write_stats_plots(stats, plot)
    if as_json:
        typer.echo(json.dumps({**stats.to_dict(), "plots": [str(p) for p in plots]}, indent=2))
        return
    from kgrag.graph.analysis.render import stats_tables

    console = new_console()
    console.print(stats_tables(stats))
    if stats.nodes == 0:
        console.print("the graph is empty: build it from your documents or `kgrag graph import` one")
    for path in plots:
        console.print(f"wrote {path}")


def _export(ws: Workspace, fmt: ExportFormat, target: Path, companion: bool) -> str:
    result = ws.graph.export(fmt.value, target, companion=companion)
    where = f"{result.path}/" if fmt is ExportFormat.NEO4J else str(result.path)
    extra = f" (+ chunks and mentions in {result.companion.name})" if result.companion else ""
    return f"wrote {result.entities:,} entities and {result.relations:,} relations to {where}{extra}"


@graph_app.command("export")
@guarded
def export_command(
    target: Annotated[Path | None, typer.Argument(help="Output: a .graphml file or a directory.")] = None,
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", help="graphml or neo4j.")] = ExportFormat.GRAPHML,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Same as the positional output.")] = None,
    companion: Annotated[
        bool,
        typer.Option("--companion/--no-companion", help="GraphML: also write chunks and mentions (for re-import)."),
    ] = True,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Export the graph: GraphML (+ JSON companion) or Neo4j CSV files with load scripts."""
    destination = out or target
    if destination is None or (out is not None and target is not None and out != target):
        raise KgragError("give one output path, e.g. `kgrag graph export --format neo4j --out neo4j-export/`")
    with open_workspace(workspace) as ws:
        message = _export(ws, fmt, destination, companion)
    new_console().print(message)


def _print_import(console: Console, report: ImportReport) -> None:
    console.print(report.summary())
    for note in report.notes():
        console.print(Text.assemble(("note", "yellow"), " ", note))
    console.print("next: `kgrag reindex --embeddings` embeds the imported chunks and entities for dense search")


@graph_app.command("import")
@guarded
def import_command(
    path: Annotated[Path, typer.Argument(help="LightRAG working directory, or a GraphML file.")],
    source: Annotated[ImportSource, typer.Option("--from", help="lightrag or graphml.")] = ImportSource.LIGHTRAG,
    graphml: Annotated[Path | None, typer.Option("--graphml", help="LightRAG: the GraphML file.")] = None,
    chunks: Annotated[Path | None, typer.Option("--chunks", help="LightRAG: the text-chunks JSON.")] = None,
    companion: Annotated[Path | None, typer.Option("--companion", help="GraphML: the provenance JSON.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the import report as JSON.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Import a graph with its chunks and provenance (one transaction; re-running is safe)."""
    with open_workspace(workspace) as ws:
        if source is ImportSource.LIGHTRAG:
            report = ws.graph.import_lightrag(path, graphml=graphml, chunks_file=chunks, progress=StderrNotes())
        else:
            report = ws.graph.import_graphml(path, companion_file=companion, progress=StderrNotes())
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        _print_import(new_console(), report)


graph_app.command("denoise")(denoise_command)
graph_app.command("undo-denoise")(undo_denoise_command)


class EditOp(StrEnum):
    RENAME = "rename"
    DESCRIBE = "describe"
    MERGE = "merge"
    SPLIT = "split"
    DELETE_RELATION = "delete-relation"


@graph_app.command("edit")
@guarded
def edit_command(
    op: Annotated[EditOp, typer.Argument(help="rename, describe, merge, split or delete-relation.")],
    target: Annotated[str, typer.Argument(help="The entity (id or name) to change or keep; or the relation id.")],
    value: Annotated[
        str,
        typer.Argument(
            help="New name or description; merge: the entity folded in; split: the merged name to take back out."
        ),
    ] = "",
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Edit the graph by hand: each edit is logged (`kgrag graph edits`), undone by `kgrag graph undo-denoise`,
    and kept when documents are re-indexed."""
    if op is not EditOp.DELETE_RELATION and not value:
        raise KgragError(
            f"`kgrag graph edit {op.value}` needs a value: the new text, the entity to merge in, "
            "or the merged name to split out"
        )
    with open_workspace(workspace) as ws:
        entry = ws.graph.edit(op.value, target, value, progress=StderrNotes())
    after = f" → {entry['after']}" if entry["after"] else ""
    new_console().print(
        Text(f"{entry['op']} {entry['before']}{after} (run {entry['run_id']}; undo: kgrag graph undo-denoise)")
    )


@graph_app.command("edits")
@guarded
def edits_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """The log of hand edits of the graph, oldest first, with whether each is still in force."""
    with open_workspace(workspace) as ws:
        log = ws.graph.edits()
    if as_json:
        typer.echo(json.dumps(log, indent=2, ensure_ascii=False))
        return
    console = new_console()
    if not log:
        console.print("no hand edits yet (`kgrag graph edit` makes them)")
    for e in log:
        console.print(Text(f"{e['at']}  {e['run_id']}  {e['status']:<8} {e['op']:<15} {e['before']} → {e['after']}"))
