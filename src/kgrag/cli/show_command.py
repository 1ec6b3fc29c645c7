"""`kgrag show ID`: the text behind an id from an answer, a trace or `--json`, with where it comes from."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.text import Text

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.core.errors import KgragError


@guarded
def show_command(
    ident: Annotated[
        str,
        typer.Argument(
            metavar="ID",
            help="A chunk id (as cited in answers, e.g. c0123abcd…), a document id or file path, an entity or "
            "relation id.",
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Show a passage, document, entity or relation by id: its text and its source (path, title, section,
    page)."""
    with open_workspace(workspace) as ws:
        shown = ws.documents.show(ident)
    if shown is None:
        raise KgragError(
            f"no chunk, document, entity or relation has the id {ident!r} in this workspace "
            "(ids are printed by `kgrag query`, `kgrag status --documents` and `--json` output)"
        )
    if as_json:
        typer.echo(json.dumps(shown.to_dict(), indent=2, ensure_ascii=False))
        return
    console = new_console()
    console.print(Text.assemble((f"{shown.kind} {shown.id}", "bold"), "  ", shown.heading))
    facts = shown.facts
    shown_facts = {
        "source": facts.get("source"),
        "status": facts.get("status"),
        "type": facts.get("type"),
        "label": facts.get("label"),
        "duplicate_of": facts.get("duplicate_of"),
        "error": facts.get("error"),
    }
    for key, value in shown_facts.items():
        if value:
            console.print(f"{key}: {value}", style="dim")
    if shown.parts:  # a document: its text as stored, each chunk under a marker line
        for n, (chunk_id, text) in enumerate(shown.parts, 1):
            console.print()
            console.print(f"── chunk {n}/{len(shown.parts)} · {chunk_id} ──", style="dim", markup=False)
            console.print(text.lstrip("\n"), markup=False, highlight=False)
    elif shown.text:
        console.print()
        console.print(shown.text)
    if shown.kind in ("entity", "relation") and shown.sources:
        console.print()
        console.print("sources:", style="bold")
        for ref in shown.sources:
            console.print(Text.assemble("- ", (ref.chunk_id, "cyan"), f": {ref.label()}"))
