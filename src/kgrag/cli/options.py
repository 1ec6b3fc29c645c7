"""Options every command shares, declared once."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

if TYPE_CHECKING:
    from kgrag.workspace import Workspace

PIPE_WIDTH = 100_000  # "unlimited": tables and lines keep their natural width when piped

WorkspaceOpt = Annotated[
    Path | None,
    typer.Option("--workspace", "-w", help="Workspace directory (default: $KGRAG_WORKSPACE or the current one)."),
]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show full tracebacks for internal errors.")]


def new_console() -> Console:
    """A console for command output: no markup, no emoji codes, no highlighting of numbers and paths.

    What commands print comes from users, documents and models (answers, passages, paths, entity names),
    so nothing printed is ever read as rich markup: ``[/time]`` in a passage must not crash the command,
    and a ``[c:ID]`` citation must not vanish. Styles are given as ``style=`` or :class:`rich.text.Text`.

    On a terminal rich wraps to its width; piped into a file or another program there is no width, and
    rich's fallback of 80 columns would hard-wrap paths, errors and table cells mid-word. So piped
    output is never wrapped (``COLUMNS`` still wins when set)."""
    console = Console(highlight=False, markup=False, emoji=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, markup=False, emoji=False, soft_wrap=True, width=PIPE_WIDTH)
    return console


def open_workspace(path: Path | None, **options: Any) -> Workspace:
    """``Workspace.open``, imported when a command runs: loading the workspace pulls in pydantic, NumPy and
    the model layers, which ``kgrag --help`` and argument errors must not pay for."""
    from kgrag.workspace import Workspace

    return Workspace.open(path, **options)


def comma_list(text: str) -> list[str]:
    """The comma-separated names of an option's value, stripped, empty ones left out."""
    return [part.strip() for part in text.split(",") if part.strip()]


def pipeline_names(text: str, option: str = "--pipelines") -> list[str]:
    """The comma-separated names of ``option`` in order, each once. A name given twice would run the
    pipeline twice and count every question twice, so the repeat is dropped, as ``kgrag compare`` and the
    server drop it, with a note on stderr naming it (the report on stdout stays clean)."""
    names = comma_list(text)
    unique = list(dict.fromkeys(names))
    if repeated := [name for name in unique if names.count(name) > 1]:
        which = ", ".join(repeated)
        print(f"! {option} names {which} more than once; each pipeline runs once", file=sys.stderr, flush=True)
    return unique
