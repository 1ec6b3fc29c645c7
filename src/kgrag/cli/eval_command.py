"""Body of `kgrag eval retrieval`, kept apart so the CLI module stays a thin list of commands: it evaluates,
stores the run as a server's job does, writes the report and prints it with the run's id."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from kgrag.cli.options import open_workspace, pipeline_names
from kgrag.core.errors import KgragError
from kgrag.evaluation import load_dataset, write_report
from kgrag.evaluation.retrieval_report import render_markdown


def run_retrieval_eval(
    workspace: Path | None,
    dataset: Path,
    pipelines: str,
    k: int,
    limit: int | None,
    out: Path | None,
    console: Console,
    baseline: str | None = None,
) -> None:
    names = pipeline_names(pipelines)
    if not names:
        raise KgragError("--pipelines is empty; name at least one pipeline (see `kgrag pipelines`)")
    if baseline is not None and baseline not in names:
        raise KgragError(f"--baseline {baseline!r} is not among --pipelines ({', '.join(names)})")
    items = load_dataset(dataset)[:limit] if limit else load_dataset(dataset)
    with open_workspace(workspace) as ws:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task("questions", total=len(items))
            report = ws.eval.retrieval(items, names, k, on_question=lambda: bar.advance(task))
        report.baseline = baseline
        run = ws.eval.store_retrieval(items, report, dataset=str(dataset))
        out_dir = out or ws.path / "reports"
    paths = write_report(report, out_dir, str(dataset))
    console.print(render_markdown(report, str(dataset)))
    console.print("written: " + ", ".join(str(p) for p in paths.values()))
    console.print(
        f"stored as run {run.record.id} (`kgrag eval list`; `kgrag eval report {run.record.id}`; the web app's "
        "Evaluation view)"
    )
