"""`kgrag eval run`, `kgrag eval list` and `kgrag eval report`: parse, call ``ws.eval``, print.

Heavy modules (the workspace, the evaluation layer) load inside the command bodies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, comma_list, new_console, open_workspace, pipeline_names
from kgrag.cli.ranges import MAX_ITEMS, MAX_K, MAX_REPEATS, MAX_SEED
from kgrag.core.registries import builtin_defaults

DatasetOpt = Annotated[Path, typer.Option("--dataset", help="GraphRAG-Bench .json or .jsonl questions.")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Report directory (default: <workspace>/reports).")]
SampleOpt = Annotated[
    int | None,
    typer.Option("--sample", min=1, max=MAX_ITEMS, help="Stratified sample of N questions (same type mix, seeded)."),
]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED, help="Seed of the stratified sample.")]


@dataclass(frozen=True)
class _RunArgs:
    dataset: Path
    pipelines: str
    runs: int | None
    metrics: str | None
    mode: str | None
    judge: str
    k: int | None
    sample: int | None
    seed: int
    label: str
    out: Path | None
    workspace: Path | None
    options: Any  # kgrag.evaluation.runner.RunOptions (loaded with the command)


def _run_body(a: _RunArgs) -> None:
    from rich.progress import Progress

    from kgrag.core.errors import KgragError
    from kgrag.evaluation import load_dataset
    from kgrag.evaluation.reports import render_run

    if a.mode not in (None, "llm-free", "llm", "both"):
        raise KgragError(f"--mode must be llm-free, llm or both (got {a.mode!r})")
    console = new_console()
    with open_workspace(a.workspace) as ws, Progress(console=console, transient=True) as bar:
        items, note = ws.eval.sample(load_dataset(a.dataset), a.sample, a.seed)
        task = bar.add_task("questions", total=len(items) * (a.runs or ws.config.evaluation.runs))
        run = ws.eval.run(
            items,
            pipeline_names(a.pipelines),
            metrics=comma_list(a.metrics) if a.metrics else None,
            runs=a.runs,
            mode=a.mode,  # type: ignore[arg-type]
            judges=comma_list(a.judge),
            k=a.k,
            dataset=str(a.dataset),
            label=a.label,
            sample=note,
            on_question=lambda: bar.advance(task),
            options=a.options,
        )
        paths = ws.eval.report([run.record.id], a.out or ws.path / "reports")
    console.print(render_run(run))
    console.print(f"stored as run {run.record.id}; written: " + ", ".join(str(p) for p in paths.values()))


BaselineOpt = Annotated[
    str | None,
    typer.Option("--baseline", help="Pipeline paired differences are taken against (default: the first named)."),
]


_DEFAULT_METRICS = (
    ", ".join(builtin_defaults("metric"))
    + ", plus installed plug-ins in the default set; evaluation.default_metrics overrides"
)


@guarded
def eval_run(
    dataset: DatasetOpt,
    pipelines: Annotated[
        str, typer.Option("--pipelines", help="Comma-separated pipeline names.")
    ] = "dense,bm25,hybrid",
    runs: Annotated[
        int | None, typer.Option("--runs", min=1, max=MAX_REPEATS, help="Repeats (default evaluation.runs).")
    ] = None,
    metrics: Annotated[
        str | None, typer.Option("--metrics", help=f"Comma-separated metric names (default: {_DEFAULT_METRICS}).")
    ] = None,
    mode: Annotated[
        str | None, typer.Option("--mode", help="llm-free, llm or both (default: both with an LLM, else llm-free).")
    ] = None,
    judge: Annotated[str, typer.Option("--judge", help="Answer judges: panel, dimensions (comma-separated).")] = "",
    k: Annotated[int | None, typer.Option("--k", min=1, max=MAX_K, help="Context items per question.")] = None,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    label: Annotated[str, typer.Option("--label", help="A note stored with the run.")] = "",
    baseline: BaselineOpt = None,
    reuse_answers: Annotated[
        bool, typer.Option("--reuse-answers", help="Replay cached answers instead of generating new ones each run.")
    ] = False,
    judge_temperature: Annotated[
        float | None,
        typer.Option("--judge-temperature", help="Judge sampling temperature (default evaluation.judge_temperature)."),
    ] = None,
    ci_seed: Annotated[
        int, typer.Option("--ci-seed", min=0, max=MAX_SEED, help="Seed of resampled intervals (means: analytic).")
    ] = 0,
    resamples: Annotated[int, typer.Option("--resamples", min=100, help="Resamples of resampled intervals.")] = 2000,
    out: OutOpt = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Score pipelines on a QA dataset: every metric's mean with a 95% interval over questions and n,
    paired differences against a baseline and a Holm verdict, spread over runs and cost per question;
    stores the run with every answer, context and judge reply, and writes its report."""
    from kgrag.evaluation.intervals import Bootstrap
    from kgrag.evaluation.runner import RunOptions

    options = RunOptions(reuse_answers, baseline, judge_temperature, Bootstrap(resamples, ci_seed))
    args = (dataset, pipelines, runs, metrics, mode, judge, k, sample, seed, label, out, workspace, options)
    _run_body(_RunArgs(*args))


@guarded
def eval_list(workspace: WorkspaceOpt = None, debug: DebugOpt = False) -> None:
    """List stored evaluation runs, newest first."""
    import time

    console = new_console()
    with open_workspace(workspace) as ws:
        records = ws.eval.runs()
    if not records:
        console.print(
            "no evaluation runs stored yet; run `kgrag eval retrieval`, `kgrag eval run` or `kgrag eval pairwise`"
        )
    for r in records:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
        console.print(f"{r.id}  {r.kind:<8} {when}  {r.dataset}  {r.label}")


@guarded
def eval_report(
    run_ids: Annotated[list[str], typer.Argument(help="Stored run ids (see `kgrag eval list`), or `latest`.")],
    out: OutOpt = None,
    baseline: BaselineOpt = None,
    question: Annotated[
        str | None,
        typer.Option("--question", help="Show one question's answers, contexts and judge replies instead."),
    ] = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Markdown + JSON + PNG plots for stored runs; several runs are compared in one report. With
    --question ID: what that question's scores rest on (answers, context items, judge reasoning)."""
    console = new_console()
    if question is not None:
        from kgrag.cli.eval_trace_commands import show_question

        show_question(run_ids, question, workspace, console)
        return
    with open_workspace(workspace) as ws:
        paths = ws.eval.report(run_ids, out or ws.path / "reports", baseline)
    console.print(paths["markdown"].read_text(encoding="utf-8"))
    console.print("written: " + ", ".join(str(p) for p in paths.values()))


PairJudgeOpt = Annotated[str, typer.Option("--judge", help="unbiased (zeng-unbiased-eval) or two-pass (deg-rag).")]
NaiveOpt = Annotated[
    bool, typer.Option("--naive", help="A always first, one trial, no length alignment (for contrast).")
]
AACheckOpt = Annotated[
    bool, typer.Option("--aa-check", help="Also judge A's answers against themselves; anything but a tie shows a bias.")
]
PairTemperatureOpt = Annotated[
    float | None,
    typer.Option("--temperature", min=0, max=2, help="Judge temperature (default evaluation.pairwise_temperature)."),
]


@guarded
def eval_pairwise(
    a: Annotated[str, typer.Argument(help="Pipeline A.")],
    b: Annotated[str, typer.Argument(help="Pipeline B.")],
    dataset: DatasetOpt,
    judge: PairJudgeOpt = "unbiased",
    trials: Annotated[
        int | None,
        typer.Option("--trials", min=1, max=MAX_REPEATS, help="M trials (default evaluation.pairwise_trials)."),
    ] = None,
    repeats: Annotated[
        int | None, typer.Option("--repeats", min=1, max=MAX_REPEATS, help="N repeats per order.")
    ] = None,
    naive: NaiveOpt = False,
    aa_check: AACheckOpt = False,
    temperature: PairTemperatureOpt = None,
    k: Annotated[int | None, typer.Option("--k", min=1, max=MAX_K, help="Context items per question.")] = None,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    out: OutOpt = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Compare two pipelines' answers with a pairwise LLM judge; stores the run and writes its report."""
    from rich.progress import Progress

    from kgrag.evaluation import load_dataset
    from kgrag.evaluation.pairwise.collect import cli_pairwise_settings, trial_note
    from kgrag.evaluation.pairwise.report import render_pairwise, warnings_of

    console = new_console()
    with open_workspace(workspace) as ws, Progress(console=console, transient=True) as bar:
        items, _ = ws.eval.sample(load_dataset(dataset), sample, seed)
        settings = cli_pairwise_settings(
            ws.config.evaluation, naive, {"trials": trials, "repeats": repeats, "temperature": temperature}
        )
        if note := trial_note(settings, ws.config.evaluation.judge_temperature, judge):
            console.print(note)
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
            aa_check=aa_check,
        )
        paths = ws.eval.report([record.id], out or ws.path / "reports")
    console.print(render_pairwise(record.payload))
    for line in warnings_of(record.payload):
        console.print(f"warning: {line}")
    console.print(f"stored as run {record.id}; written: " + ", ".join(str(p) for p in paths.values()))
