"""`kgrag eval run`, `kgrag eval list` and `kgrag eval report`: parse, call ``ws.eval``, print.

Heavy modules (the workspace, the evaluation layer) load inside the command bodies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kgrag.cli.errors import run_guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace

DatasetOpt = Annotated[Path, typer.Option("--dataset", help="GraphRAG-Bench .json or .jsonl questions.")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Report directory (default: <workspace>/reports).")]
SampleOpt = Annotated[
    int | None, typer.Option("--sample", help="Stratified sample of N questions (same type mix, seeded).")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the stratified sample.")]


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def eval_run(
    dataset: DatasetOpt,
    pipelines: Annotated[str, typer.Option("--pipelines", help="Comma-separated pipeline names.")] = "dense,bm25,hybrid",
    runs: Annotated[int | None, typer.Option("--runs", help="Repeats (default evaluation.runs).")] = None,
    metrics: Annotated[
        str | None, typer.Option("--metrics", help="Comma-separated metric names (default: all six).")
    ] = None,
    mode: Annotated[
        str | None, typer.Option("--mode", help="llm-free, llm or both (default: both with an LLM, else llm-free).")
    ] = None,
    judge: Annotated[str, typer.Option("--judge", help="Answer judges: panel, dimensions (comma-separated).")] = "",
    k: Annotated[int | None, typer.Option("--k", help="Context items per question.")] = None,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    label: Annotated[str, typer.Option("--label", help="A note stored with the run.")] = "",
    out: OutOpt = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Score pipelines on a QA dataset (mean ± std over runs, cost per question), store the run and
    write its report."""

    def body() -> None:
        from rich.progress import Progress

        from kgrag.core.errors import KgragError
        from kgrag.evaluation import load_dataset
        from kgrag.evaluation.reports import render_run
        from kgrag.evaluation.sampling import stratified_sample

        if mode not in (None, "llm-free", "llm", "both"):
            raise KgragError(f"--mode must be llm-free, llm or both (got {mode!r})")
        items = load_dataset(dataset)
        note = ""
        if sample is not None and sample < len(items):
            note = f"stratified sample of {sample} of {len(items)} (seed {seed})"
            items = stratified_sample(items, sample, seed)
        console = new_console()
        with open_workspace(workspace) as ws, Progress(console=console, transient=True) as bar:
            names = _names(pipelines)
            task = bar.add_task("questions", total=len(items) * (runs or ws.config.evaluation.runs))
            run = ws.eval.run(
                items, names, metrics=_names(metrics) if metrics else None, runs=runs, mode=mode,  # type: ignore[arg-type]
                judges=_names(judge), k=k, dataset=str(dataset), label=label, sample=note,
                on_question=lambda: bar.advance(task),
            )
            paths = ws.eval.report([run.record.id], out or ws.path / "reports")
        console.print(render_run(run.record.payload, run.summary))
        console.print(f"stored as run {run.record.id}; written: " + ", ".join(str(p) for p in paths.values()))

    run_guarded(body, debug)


def eval_list(workspace: WorkspaceOpt = None, debug: DebugOpt = False) -> None:
    """List stored evaluation runs, newest first."""

    def body() -> None:
        import time

        console = new_console()
        with open_workspace(workspace) as ws:
            records = ws.eval.runs()
        if not records:
            console.print("no evaluation runs stored yet; run `kgrag eval run` or `kgrag eval pairwise`")
        for r in records:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
            console.print(f"{r.id}  {r.kind:<8} {when}  {r.dataset}  {r.label}")

    run_guarded(body, debug)


def eval_report(
    run_ids: Annotated[list[str], typer.Argument(help="Stored run ids (see `kgrag eval list`), or `latest`.")],
    out: OutOpt = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Markdown + JSON + PNG plots for stored runs; several runs are compared in one report."""

    def body() -> None:
        console = new_console()
        with open_workspace(workspace) as ws:
            paths = ws.eval.report(run_ids, out or ws.path / "reports")
        console.print(paths["markdown"].read_text(encoding="utf-8"))
        console.print("written: " + ", ".join(str(p) for p in paths.values()))

    run_guarded(body, debug)
