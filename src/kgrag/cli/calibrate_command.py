"""`kgrag eval calibrate LABELS`: agreement of a run's judges with human labels (docs/evaluation.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.cli.ranges import MAX_BINS


def _body(
    labels_path: Path,
    run_id: str,
    dataset: Path | None,
    bins: int,
    out: Path | None,
    workspace: Path | None,
) -> None:
    from kgrag.core.errors import KgragError
    from kgrag.evaluation import load_dataset
    from kgrag.evaluation.judges.calibration import calibrate, rejudge_plan, render_markdown, write_report
    from kgrag.evaluation.judges.labels import labelled_run, load_labels

    labels = load_labels(labels_path)
    run_id = labelled_run(labels, run_id)
    if dataset is not None and any(label.keyed for label in labels):
        raise KgragError(
            f"--dataset re-judges new answers, but {labels_path} labels answers of run {run_id}: drop --dataset"
        )
    console = new_console()
    with open_workspace(workspace) as ws:
        if dataset is not None:
            wanted = {label.question_id for label in labels}
            items = [item for item in load_dataset(dataset) if item.id in wanted]
            if not items:
                raise KgragError(f"--dataset {dataset}: none of the labelled question ids is in it")
            pipelines, metrics, judges, mode = rejudge_plan(labels)
            run = ws.eval.run(
                items,
                pipelines,
                metrics=metrics,
                runs=1,
                mode=mode,
                judges=judges,
                dataset=str(dataset),
                label="calibration re-judge",
            )
        else:
            run = ws.eval.get_run(run_id)
        result = calibrate(labels, run.scores, run.record.payload, run.record.id, bins)
        paths = write_report(result, out or ws.path / "reports")
    for warning in result.warnings:
        console.print(f"warning: {warning}", style="bold yellow")
    console.print(render_markdown(result))
    console.print("written: " + ", ".join(str(p) for p in paths.values()))


@guarded
def eval_calibrate(
    labels: Annotated[
        Path,
        typer.Argument(
            help="Human labels: .csv (header) or .jsonl with answer_id (from `eval export`), metric, human."
        ),
    ],
    run: Annotated[
        str, typer.Option("--run", help="Stored run whose scores are compared (default: the labels' run, else latest).")
    ] = "latest",
    dataset: Annotated[
        Path | None,
        typer.Option(
            "--dataset", help="Re-judge instead: answer and score the labelled questions of this dataset again."
        ),
    ] = None,
    bins: Annotated[
        int, typer.Option("--bins", min=2, max=MAX_BINS, help="Equal-width bins for κ on continuous scores.")
    ] = 3,
    out: Annotated[Path | None, typer.Option("--out", help="Report directory (default: <workspace>/reports).")] = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """How far to trust the judges: Cohen's κ and Spearman's ρ between human labels and a run's judge
    scores, per judge and metric, with n; warns when a judge model also generated the answers."""
    _body(labels, run, dataset, bins, out, workspace)
