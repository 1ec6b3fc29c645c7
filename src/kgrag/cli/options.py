"""Options every command shares, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

WorkspaceOpt = Annotated[
    Path | None,
    typer.Option("--workspace", "-w", help="Workspace directory (default: $KGRAG_WORKSPACE or the current one)."),
]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show full tracebacks for internal errors.")]


def new_console() -> Console:
    """A console for command output (no syntax highlighting of numbers and paths)."""
    return Console(highlight=False)
