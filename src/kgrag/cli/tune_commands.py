"""`kgrag tune <what>`: every fitting command in one group, the CLI face of ``ws.tune``.

``lambda`` fits λ of the ``paths`` pipeline, ``router`` the policy ``auto`` routes by, ``reranker`` the
``fused`` reranker's weights, ``prompts`` the extraction prompts for a corpus. The older spellings keep
working as they were: ``kgrag tune --dataset …`` (λ, or the routing policy with ``--router``),
``kgrag tune-reranker`` and ``kgrag prompts tune``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from kgrag.cli.compare_commands import (
    DatasetOpt,
    DryRunOpt,
    HoldoutOpt,
    LambdaPipelineOpt,
    LimitOpt,
    ScoredKOpt,
    SeedOpt,
    fit_lambda,
    labelled_questions,
    tune,
    tune_reranker,
)
from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console
from kgrag.cli.prompt_tune_command import tune_command
from kgrag.cli.ranges import MAX_BINS

LEGACY = "legacy"
"""The hidden subcommand the older spelling (options right after ``tune``) runs: the λ/--router command."""


class TuneGroup(TyperGroup):
    """``kgrag tune``: a group whose first word names what to fit; options straight after ``tune`` (the
    older spelling) go to the λ/--router command unchanged."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = [LEGACY, *args]
        return super().parse_args(ctx, args)


tune_app = typer.Typer(
    cls=TuneGroup,
    no_args_is_help=True,
    help="Fit what kgrag learns from labelled questions or a corpus: `lambda`, `router`, `reranker`, `prompts`.",
)


@guarded
def tune_lambda(
    dataset: DatasetOpt,
    pipeline: LambdaPipelineOpt = "paths",
    k: ScoredKOpt = 5,
    limit: LimitOpt = None,
    holdout: HoldoutOpt = 0.0,
    seed: SeedOpt = 0,
    dry_run: DryRunOpt = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Fit λ (dense vs graph weight) of the `paths` pipeline on labelled questions and store it."""
    fit_lambda(labelled_questions(dataset, limit), pipeline, k, holdout, seed, dry_run, workspace)


@guarded
def tune_router(
    dataset: DatasetOpt,
    pipelines: Annotated[
        str | None, typer.Option("--pipelines", help="Comma-separated pipelines it may choose.")
    ] = None,
    folds: Annotated[int, typer.Option("--folds", min=2, max=MAX_BINS, help="Cross-validation folds.")] = 5,
    cache: Annotated[
        Path | None, typer.Option("--cache", help="Directory keeping per-question outcomes to resume.")
    ] = None,
    limit: LimitOpt = None,
    seed: SeedOpt = 0,
    dry_run: DryRunOpt = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Fit and store the policy `auto` routes questions by (cross-validated on the labelled questions)."""
    from kgrag.cli.router_command import run_router_tuning

    items = labelled_questions(dataset, limit)
    run_router_tuning(items, workspace, pipelines, folds, seed, dry_run, cache, new_console())


tune_app.command("lambda")(tune_lambda)
tune_app.command("router")(tune_router)
tune_app.command("reranker")(tune_reranker)
tune_app.command("prompts")(tune_command)
tune_app.command(LEGACY, hidden=True)(tune)
