"""`kgrag prune`: delete the cached vectors (and, asked, LLM replies) that removed or edited documents left
behind, then compact the database (:mod:`kgrag.indexing.prune`)."""

from __future__ import annotations

from typing import Annotated

import typer

from kgrag.cli.errors import guarded
from kgrag.cli.notes import StderrNotes
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace


@guarded
def prune(
    llm_cache: Annotated[
        bool,
        typer.Option(
            "--llm-cache",
            help="Also empty the LLM reply cache (which document a reply came from is not recorded); "
            "replies asked for again are paid for again.",
        ),
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Count what would go; delete nothing.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Delete cached vectors no indexed text uses (those of removed or edited documents, and of embedding
    models the workspace no longer uses), then compact the database so their bytes leave its files."""
    from kgrag.indexing.prune import prune_lines

    with open_workspace(workspace) as ws:
        report = ws.indexing.prune(llm_cache=llm_cache, dry_run=dry_run, progress=StderrNotes())
    console = new_console()
    for line in prune_lines(report):
        console.print(line, markup=False, highlight=False)
