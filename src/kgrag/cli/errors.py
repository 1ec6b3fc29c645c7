"""Turn exceptions into exit codes and one-line messages instead of tracebacks."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable

import typer

from kgrag.core.errors import KgragError

EXIT_USER_ERROR = 1
EXIT_INTERNAL_ERROR = 2


def run_guarded(body: Callable[[], None], debug: bool) -> None:
    """Run a command body: user errors exit 1 with their message, bugs exit 2 with a pointer to --debug."""
    try:
        body()
    except KgragError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USER_ERROR) from None
    except KeyboardInterrupt:
        typer.echo("interrupted; re-run the same command to resume", err=True)
        raise typer.Exit(130) from None
    except typer.Exit:
        raise
    except Exception as exc:  # the one place that catches everything, to keep tracebacks off users
        if debug:
            traceback.print_exc(file=sys.stderr)
        typer.echo(
            f"internal error: {type(exc).__name__}: {exc} (re-run with --debug for the traceback, "
            "and please report it)",
            err=True,
        )
        raise typer.Exit(EXIT_INTERNAL_ERROR) from None
