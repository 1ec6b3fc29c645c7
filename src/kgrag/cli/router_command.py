"""Body of `kgrag tune router`: collect outcomes with progress, print the cross-validated table and the
policy's rules, store the policy (unless ``--dry-run``)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from kgrag.cli.options import open_workspace, pipeline_names
from kgrag.cli.progress import console_progress
from kgrag.core.errors import KgragError
from kgrag.evaluation.datasets import QAItem
from kgrag.tuning.router_fit import ALL, AUTO, RouterTuneReport


def run_router_tuning(
    items: list[QAItem],
    workspace: Path | None,
    pipelines: str | None,
    folds: int,
    seed: int,
    dry_run: bool,
    cache: Path | None,
    console: Console,
) -> None:
    names = pipeline_names(pipelines) if pipelines is not None else None
    if names is not None and not names:
        raise KgragError("--pipelines is empty; name the pipelines the router may choose (see `kgrag pipelines`)")
    labelled = sum(1 for item in items if item.evidence)
    with open_workspace(workspace) as ws, console_progress(console) as progress:
        started: list[str] = []  # pipelines run one after another: a new one means the last is done

        def on_step(stage: str) -> None:
            if stage not in started:
                if started:
                    progress.finish(started[-1])
                started.append(stage)
                progress.start(stage, labelled)
            progress.advance(stage)

        report = ws.eval.tune_router(
            items, names, folds=folds, seed=seed, save=not dry_run, cache=cache, on_step=on_step
        )
        if started:
            progress.finish(started[-1])
    console.print(cv_table(report))
    console.print(versus_table(report))
    console.print(f"Folds: {report.fold_rule}.", markup=False, highlight=False)
    console.print("auto All per fold: " + ", ".join(f"{v:.3f}" for v in report.fold_recall), highlight=False)
    console.print("Policy (fitted on all questions):", highlight=False)
    for rule in report.policy.rules():
        console.print(f"  {rule}", markup=False, highlight=False)
    goal = "at least" if report.goal_met() else "below"
    best = report.versus_best[ALL][0]
    console.print(f"held out, auto is {goal} {best} (the best single pipeline) on every question type", highlight=False)
    verb = "stored the policy; `auto` now routes by it" if report.stored else "would store the policy (--dry-run)"
    console.print(f"{verb} ({report.questions} questions, {report.folds} folds)", highlight=False)


def cv_table(report: RouterTuneReport) -> Table:
    """Held-out evidence recall per question type, context tokens in brackets."""
    types = report.types
    title = f"evidence recall, {report.folds}-fold cross-validation (context tokens)"
    table = Table("", *(f"{t} (n={report.counts[t]})" for t in types), title=title)
    for arm in [AUTO, *report.pipelines]:
        label = "auto (learned)" if arm == AUTO else arm
        table.add_row(label, *(f"{report.recall[arm][t]:.3f} ({report.tokens[arm][t]:.0f})" for t in types))
    return table


def versus_table(report: RouterTuneReport) -> Table:
    """auto against the best single pipeline (best on All) and against the best of each type, with 95%
    intervals of the paired differences, and where the held-out questions were routed."""
    overall = report.versus_best[ALL][0]
    table = Table(
        "type", f"auto − {overall}", "95% interval", "best of the type", "auto − it", "95% interval", "held-out routes"
    )
    for t in report.types:
        _, diff, half = report.versus_best[t]
        best, type_diff, type_half = report.versus_type_best[t]
        routes = ", ".join(f"{p} {n}" for p, n in report.routes.get(t, {}).items())
        table.add_row(
            t,
            f"{diff:+.3f}",
            f"[{diff - half:+.3f}, {diff + half:+.3f}]",
            best,
            f"{type_diff:+.3f}",
            f"[{type_diff - type_half:+.3f}, {type_diff + type_half:+.3f}]",
            routes,
        )
    return table
