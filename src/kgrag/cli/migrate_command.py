"""`kgrag migrate`: copy a workspace to another store backend (e.g. SQLite → PostgreSQL), verified.

The command parses, calls :func:`kgrag.store.migrate.migrate_store` with a rich progress bar, and
prints the per-table counts and the line that switches the workspace to the new store.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console


@guarded
def migrate(
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="Target store: postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME], "
            "sqlite:///PATH, or a backend name (sqlite = the workspace's default file). Must be empty.",
        ),
    ],
    source: Annotated[
        str | None,
        typer.Option("--from", help="Source store, same forms as --to (default: the workspace's configured store)."),
    ] = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Copy the workspace's documents, chunks, vectors, graph, communities, denoise logs, LLM cache and
    ledger and eval runs into another store, in one verified transaction (all or nothing)."""
    from kgrag.cli.progress import console_progress
    from kgrag.store.migrate import migrate_store
    from kgrag.workspace import resolve_workspace_dir

    console = new_console()
    directory = resolve_workspace_dir(workspace)
    with console_progress(console) as progress:
        done = migrate_store(directory, to, source, progress)
    table = Table("table", "source rows", "copied rows", title="kgrag migrate: verified")
    for count in done.report.tables:
        if count.source:
            table.add_row(count.table, str(count.source), str(count.target))
    console.print(table)
    console.print(
        f"{done.report.rows} rows copied in {done.report.seconds:.1f} s; row counts and graph fingerprint "
        "equal. The workspace still uses its old store; to switch, put these settings in the [store] table "
        "of kgrag.toml (or set KGRAG_STORE to the URL):\n",
        markup=False,
    )
    console.print(done.switch_hint, markup=False, highlight=False, soft_wrap=True)  # pasted as printed
