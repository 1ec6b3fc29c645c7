"""Turn exceptions into exit codes and one-line messages instead of tracebacks."""

from __future__ import annotations

import functools
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from types import FrameType
from typing import Any, NoReturn, ParamSpec

import typer

from kgrag.core.errors import KgragError

P = ParamSpec("P")

EXIT_USER_ERROR = 1
EXIT_INTERNAL_ERROR = 2
EXIT_INCOMPLETE = 3  # the run finished, but LLM work failed or fell back and is retried by the next run


def exit_if_incomplete(incomplete: list[str]) -> None:
    """End with :data:`EXIT_INCOMPLETE` and one ``incomplete:`` line naming what the next run must finish."""
    if incomplete:
        typer.echo(
            f"incomplete: {', '.join(incomplete)}; run the same command again to finish (exit {EXIT_INCOMPLETE})",
            err=True,
        )
        raise typer.Exit(EXIT_INCOMPLETE)


STOP_SIGNALS = ("SIGTERM", "SIGHUP")


class Terminated(BaseException):
    """Raised in the main thread when SIGTERM or SIGHUP arrives: like Ctrl-C, it unwinds the command (open
    transactions roll back, files close) and ends in one line instead of a silent death. A BaseException,
    so no ``except Exception`` on the way can swallow it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


def install_stop_handlers() -> None:
    """Turn SIGTERM/SIGHUP into :class:`Terminated` (main thread only; where the platform has them)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in STOP_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, _terminate)


RESUME_HINT = "; re-run the same command to resume"


def _stopped(exc: Terminated, hint: str) -> NoReturn:
    name = signal.Signals(exc.signum).name
    typer.echo(f"stopped by {name}{hint}", err=True)
    raise SystemExit(128 + exc.signum)


def run_guarded(body: Callable[[], None], debug: bool, resumes: bool = True) -> None:
    """Run a command body: user errors exit 1 with their message, bugs exit 2 with a pointer to --debug.
    ``resumes``: whether a stopped run is worth re-running to finish its work (not a server's)."""
    hint = RESUME_HINT if resumes else ""
    try:
        body()
    except KgragError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USER_ERROR) from None
    except KeyboardInterrupt:
        typer.echo(f"interrupted{hint}", err=True)
        raise typer.Exit(130) from None
    except Terminated as exc:
        _stopped(exc, hint)
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


def guarded(command: Callable[P, None]) -> Callable[P, None]:
    """Decorate a CLI command so its body runs under :func:`run_guarded` with the command's own ``--debug``
    option: the command reads as straight-line code, and typer still sees its signature (``wraps``)."""
    return _guard(command, resumes=True)


def guarded_session(command: Callable[P, None]) -> Callable[P, None]:
    """:func:`guarded` for a command that runs until it is stopped (a server, a chat): a stop signal or
    Ctrl-C is how it ends, so its one line says so without suggesting to re-run it."""
    return _guard(command, resumes=False)


def _guard(command: Callable[P, None], resumes: bool) -> Callable[P, None]:
    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        run_guarded(lambda: command(*args, **kwargs), bool(kwargs.get("debug", False)), resumes)

    return wrapper


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
    install_stop_handlers()
    try:
        code = app(args=args, standalone_mode=False)
    except Terminated as exc:  # before or after a command body (which reports it itself)
        _stopped(exc, "")
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
    """A usage error as typer's panel on a terminal; piped, as one line naming the command's help."""
    if sys.stderr.isatty():
        from typer import rich_utils

        rich_utils.rich_format_error(exc)
        return
    context = getattr(exc, "ctx", None)
    message = " ".join(exc.format_message().split())
    if context is not None and isinstance(exc, _click_exceptions().UsageError):
        message += f" (see `{context.command_path} --help`)"
    typer.echo(f"error: {message}", err=True)
