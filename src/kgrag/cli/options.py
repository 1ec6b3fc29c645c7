"""Options every command shares, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

if TYPE_CHECKING:
    from kgrag.workspace import Workspace

WorkspaceOpt = Annotated[
    Path | None,
    typer.Option("--workspace", "-w", help="Workspace directory (default: $KGRAG_WORKSPACE or the current one)."),
]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show full tracebacks for internal errors.")]


def new_console() -> Console:
    """A console for command output (no syntax highlighting of numbers and paths)."""
    return Console(highlight=False)


def open_workspace(path: Path | None, **options: Any) -> Workspace:
    """``Workspace.open``, imported when a command runs: loading the workspace pulls in pydantic, NumPy and
    the model layers, which ``kgrag --help`` and argument errors must not pay for."""
    from kgrag.workspace import Workspace

    return Workspace.open(path, **options)
