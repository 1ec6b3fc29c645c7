"""`kgrag eval qgen`: write a generated question set in the dataset format `kgrag eval` reads."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.cli.ranges import MAX_SEED

if TYPE_CHECKING:
    from rich.console import Console

    from kgrag.evaluation.qgen import QGenResult

_LLM_HELP = (
    "`none`: known-item questions from the chunks with spaCy, no LLM; `config`: the configured LLM; "
    "`auto` (default): the LLM when one is configured, else none."
)


def _shown(offered: dict[str, int], left_out: dict[str, int]) -> str:
    parts = [f"{offered[k] - left_out.get(k, 0)}/{offered[k]} {k}s" for k in sorted(offered)]
    return ", ".join(parts)


def _summary(console: Console, result: QGenResult, out: Path) -> None:
    """What was kept and written, every rejection by reason, and what the generator was shown."""
    rejected = ", ".join(f"{why}: {n}" for why, n in result.rejected.most_common()) or "none"
    console.print(
        f"kept {len(result.items)} of {result.generated} generated questions → {out}; rejected: {rejected}",
        markup=False,
    )
    if result.offered:
        console.print(
            f"shown to the generator: {_shown(result.offered, result.left_out)}", markup=False, highlight=False
        )


@guarded
def eval_qgen(
    out: Annotated[Path, typer.Option("--out", help="Where to write the questions: .json (a list) or .jsonl.")],
    kinds: Annotated[
        str | None,
        typer.Option(
            "--kinds",
            help="With an LLM: node, edge, subgraph, answer-given, single-fact, multi-fact; without: "
            "known-item, two-chunk (comma-separated; default: node,edge,subgraph,single-fact or both LLM-free kinds).",
        ),
    ] = None,
    per_kind: Annotated[
        int | None,
        typer.Option("--per-kind", min=1, help="Attempts per kind with an LLM (10), questions per kind without (60)."),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, max=MAX_SEED, help="Seed of the sampling: same seed, same questions.")
    ] = 0,
    llm: Annotated[str, typer.Option("--llm", help=_LLM_HELP)] = "auto",
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Model checking answerability (default: the generating one).")
    ] = None,
    no_check: Annotated[
        bool,
        typer.Option(
            "--no-check",
            help="With an LLM: keep questions without the model's answerability check (more questions, more of "
            "them vague or unanswerable; for a model too small to judge its own).",
        ),
    ] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Generate a QA dataset from this workspace's documents (and graph, with an LLM): de-duplicated, each
    question checked against the passages it came from."""
    from rich.progress import Progress

    from kgrag.core.errors import KgragError
    from kgrag.evaluation.qgen.output import write_questions

    if llm not in ("auto", "none", "config"):
        raise KgragError(f"--llm {llm!r}: choose auto, none or config")
    if out.suffix not in (".json", ".jsonl"):
        raise KgragError(f"--out {out}: name a .json (a list) or .jsonl (one question per line) file")
    names = [k.strip() for k in (kinds or "").split(",") if k.strip()] or None
    console = new_console()
    with open_workspace(workspace) as ws, Progress(console=console, transient=True) as bar:
        task = bar.add_task("generating", total=None)
        result = ws.eval.qgen(
            names,
            per_kind,
            seed=seed,
            llm=llm,  # type: ignore[arg-type]  # checked above
            judge_model=judge_model,
            on_question=lambda: bar.advance(task),
            llm_check=not no_check,
        )
    write_questions(out, result, "kgrag-qgen")
    _summary(console, result, out)
