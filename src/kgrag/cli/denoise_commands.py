"""`kgrag graph denoise [--dry-run]` and `kgrag graph undo-denoise`: parse, call ``ws.denoise``, print.

Registered onto ``graph_app`` in :mod:`kgrag.cli.graph_commands` with one line each; the work (and the
heavy imports: igraph, NumPy, the embedder) happens inside ``ws.denoise``.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from kgrag.cli.errors import guarded
from kgrag.cli.notes import StderrNotes
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace

DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Only plan: print and write the merges and drops.")]
OutOpt = Annotated[
    Path | None, typer.Option("--out", help="Dry run: write the plan here (default <workspace>/denoise-plan.json).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]


class DenoiseStep(StrEnum):
    """The steps ``--only`` can pick: an enum, so typer refuses any other value as a usage error."""

    RESOLVE = "resolve"
    REFLECT = "reflect"
    BOTH = "both"


StepOpt = Annotated[DenoiseStep, typer.Option("--only", help="`resolve`, `reflect` or `both` (default).")]
TargetOpt = Annotated[
    float | None,
    typer.Option("--target", min=0.0, max=0.99, help="Entity reduction target (denoise.target_reduction)."),
]
ThresholdOpt = Annotated[
    float | None,
    typer.Option("--threshold", min=-1.0, max=1.0, help="Minimum similarity to merge (denoise.threshold)."),
]
ReflectionOpt = Annotated[
    str | None, typer.Option("--reflection", help="`llm`, `provenance` or `none` (denoise.reflection).")
]


def _overrides(target: float | None, threshold: float | None, reflection: str | None) -> dict[str, object]:
    section: dict[str, object] = {}
    if threshold is not None:
        section["threshold"] = threshold
        section["groupers"] = {"greedy": {"anchor_floor": threshold}}
    if target is not None:
        section["target_reduction"] = target
    if reflection is not None:
        section["reflection"] = reflection
    return {"denoise": section} if section else {}


@guarded
def denoise_command(
    dry_run: DryRunOpt = False,
    out: OutOpt = None,
    only: StepOpt = DenoiseStep.BOTH,
    target: TargetOpt = None,
    threshold: ThresholdOpt = None,
    reflection: ReflectionOpt = None,
    as_json: JsonOpt = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Merge duplicate entities and drop unsupported relations ([denoise] settings); undoable."""
    steps = {"resolve": only is not DenoiseStep.REFLECT, "reflect": only is not DenoiseStep.RESOLVE}
    with open_workspace(workspace, **_overrides(target, threshold, reflection)) as ws:
        if dry_run:
            report, path = ws.denoise.plan(**steps, out=out)
        else:
            report, path = ws.denoise.apply(**steps, progress=StderrNotes())
    if as_json:
        typer.echo(json.dumps({**report.to_dict(), "file": str(path)}, indent=2, ensure_ascii=False))
        return
    console = new_console()
    console.print(report.markdown(), markup=False, highlight=False)
    what = "plan" if dry_run else "merge log"
    console.print(f"wrote the {what} to {path}")
    if not dry_run:
        console.print("undo with `kgrag graph undo-denoise`")


@guarded
def undo_denoise_command(
    force: Annotated[bool, typer.Option("--force", help="Undo even if the graph changed since the run.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Restore the graph exactly as it was before the last denoising run."""
    with open_workspace(workspace) as ws:
        run = ws.denoise.undo(force=force, progress=StderrNotes())
    new_console().print(f"undid denoising run {run.id}: the graph is as it was before it")
