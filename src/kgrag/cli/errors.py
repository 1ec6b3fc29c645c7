"""Turn exceptions into exit codes and one-line messages instead of tracebacks."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn

import typer

from kgrag.core.errors import KgragError

EXIT_USER_ERROR = 1
EXIT_INTERNAL_ERROR = 2
EXIT_INCOMPLETE = 3  # the run finished, but LLM work failed or fell back and is retried by the next run


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


def _click_exceptions() -> Any:
    """Typer vendors click as ``typer._click`` in recent versions; older ones use click itself."""
    try:
        from typer._click import exceptions
    except ImportError:  # pragma: no cover - depends on the installed typer
        from click import exceptions  # type: ignore[no-redef]
    return exceptions


def run_app(app: typer.Typer, args: list[str] | None = None) -> NoReturn:
    """Run the CLI like ``app()``, except that usage errors (unknown option or command, missing or bad
    argument, no arguments at all) exit with the user-error code 1: click would use 2, which the README
    reserves for internal errors. On a terminal the message keeps typer's rich panel; piped, it is
    printed plain so it is not hard-wrapped at 80 columns."""
    exceptions = _click_exceptions()
    try:
        code = app(args=args, standalone_mode=False)
    except exceptions.UsageError as exc:
        _show(exc)
        raise SystemExit(EXIT_USER_ERROR) from None
    except exceptions.ClickException as exc:
        _show(exc)
        raise SystemExit(exc.exit_code) from None
    except typer.Abort:
        typer.echo("aborted", err=True)
        raise SystemExit(EXIT_USER_ERROR) from None
    raise SystemExit(code if isinstance(code, int) else 0)


def _show(exc: Any) -> None:
    if sys.stderr.isatty():
        from typer import rich_utils

        rich_utils.rich_format_error(exc)
    else:
        exc.show()
