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


def _run_body(
    dataset: Path,
    pipelines: str,
    runs: int | None,
    metrics: str | None,
    mode: str | None,
    judge: str,
    k: int | None,
    sample: int | None,
    seed: int,
    label: str,
    out: Path | None,
    workspace: Path | None,
) -> None:
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
            items,
            names,
            metrics=_names(metrics) if metrics else None,
            runs=runs,
            mode=mode,  # type: ignore[arg-type]
            judges=_names(judge),
            k=k,
            dataset=str(dataset),
            label=label,
            sample=note,
            on_question=lambda: bar.advance(task),
        )
        paths = ws.eval.report([run.record.id], out or ws.path / "reports")
    console.print(render_run(run.record.payload, run.summary))
    console.print(f"stored as run {run.record.id}; written: " + ", ".join(str(p) for p in paths.values()))


def eval_run(
    dataset: DatasetOpt,
    pipelines: Annotated[
        str, typer.Option("--pipelines", help="Comma-separated pipeline names.")
    ] = "dense,bm25,hybrid",
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
        _run_body(dataset, pipelines, runs, metrics, mode, judge, k, sample, seed, label, out, workspace)

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


def eval_pairwise(
    a: Annotated[str, typer.Argument(help="Pipeline A.")],
    b: Annotated[str, typer.Argument(help="Pipeline B.")],
    dataset: DatasetOpt,
    judge: Annotated[
        str, typer.Option("--judge", help="unbiased (zeng-unbiased-eval) or two-pass (deg-rag).")
    ] = "unbiased",
    trials: Annotated[
        int | None, typer.Option("--trials", help="M trials (default evaluation.pairwise_trials).")
    ] = None,
    repeats: Annotated[int | None, typer.Option("--repeats", help="N repeats per order.")] = None,
    naive: Annotated[
        bool, typer.Option("--naive", help="One order, one trial, no alignment, no ties (for contrast).")
    ] = False,
    k: Annotated[int | None, typer.Option("--k", help="Context items per question.")] = None,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    out: OutOpt = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Compare two pipelines' answers with a pairwise LLM judge; stores the run and writes its report."""

    def body() -> None:
        import dataclasses

        from rich.progress import Progress

        from kgrag.evaluation import load_dataset
        from kgrag.evaluation.pairwise.collect import pairwise_settings
        from kgrag.evaluation.pairwise.report import render_pairwise
        from kgrag.evaluation.pairwise.types import PairwiseSettings
        from kgrag.evaluation.sampling import stratified_sample

        items = load_dataset(dataset)
        if sample is not None:
            items = stratified_sample(items, sample, seed)
        console = new_console()
        with open_workspace(workspace) as ws, Progress(console=console, transient=True) as bar:
            settings = PairwiseSettings.naive() if naive else pairwise_settings(ws.config.evaluation)
            if trials is not None:
                settings = dataclasses.replace(settings, trials=trials)
            if repeats is not None:
                settings = dataclasses.replace(settings, repeats=repeats)
            task = bar.add_task("answering", total=len(items))
            record = ws.eval.pairwise(
                items,
                a,
                b,
                judge=judge,
                settings=settings,
                k=k,
                dataset=str(dataset),
                on_question=lambda: bar.advance(task),
            )
            paths = ws.eval.report([record.id], out or ws.path / "reports")
        console.print(render_pairwise(record.payload))
        console.print(f"stored as run {record.id}; written: " + ", ".join(str(p) for p in paths.values()))

    run_guarded(body, debug)
