"""Rich progress bars behind the :class:`kgrag.indexing.Progress` protocol."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from kgrag.cli.progress_lines import LineProgress
from kgrag.core.progress import Detail


class _DetailColumn(ProgressColumn):
    """A stage's detail (:func:`kgrag.core.progress.show_detail`), read each time the bars redraw."""

    def __init__(self, details: dict[str, Detail]) -> None:
        super().__init__()
        self._details = details

    def render(self, task: Task) -> Text:
        shown = self._details.get(task.description)
        return Text(shown() if shown is not None else "", style="dim")


class RichProgress:
    """One bar per stage; notes are printed above the bars as they arrive."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._details: dict[str, Detail] = {}
        self._bars = Progress(
            TextColumn("{task.description:<12}", style="bold", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            _DetailColumn(self._details),
            console=console,
            transient=False,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> RichProgress:
        self._bars.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._bars.stop()

    def start(self, stage: str, total: int | None) -> None:
        self._tasks[stage] = self._bars.add_task(stage, total=total)

    def advance(self, stage: str, amount: int = 1) -> None:
        if stage in self._tasks:
            self._bars.advance(self._tasks[stage], amount)

    def note(self, message: str) -> None:
        self._console.print(Text.assemble(("!", "yellow"), " ", message), highlight=False)

    def detail(self, stage: str, detail: Detail | None) -> None:
        """Show ``detail()`` after ``stage``'s bar (:func:`kgrag.core.progress.show_detail`)."""
        if detail is None:
            self._details.pop(stage, None)
        else:
            self._details[stage] = detail

    def finish(self, stage: str) -> None:
        task = self._tasks.get(stage)
        if task is not None:
            self._bars.update(task, completed=self._bars.tasks[task].total or 0)


def console_progress(console: Console) -> RichProgress | LineProgress:
    """Bars on a terminal; on anything else (a log file, a pipe, CI) one plain line per stage every few
    seconds (:mod:`kgrag.cli.progress_lines`), since bars would show nothing until the run ends."""
    if console.is_terminal:
        return RichProgress(console)
    return LineProgress(console)
