"""`kgrag eval report RUN --question ID`, `kgrag eval export RUN --jsonl FILE` and `kgrag eval rescore
EXPORT`: what a stored run's scores rest on (answers, context items, evidence, similarities, judge
requests and replies), shown, exported, or computed again from the export."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace


def show_question(run_ids: list[str], question: str, workspace: Path | None, console: Console) -> None:
    from kgrag.core.errors import KgragError
    from kgrag.evaluation.provenance import render_question

    if len(run_ids) != 1:
        raise KgragError("--question shows one run at a time; name a single run id (or `latest`)")
    with open_workspace(workspace) as ws:
        run = ws.eval.get_run(run_ids[0])
        traces = ws.eval.traces(run.record.id, question)
    if not traces:
        known = sorted({s.question_id for s in run.scores})
        listed = ", ".join(known[:8]) + (", …" if len(known) > 8 else "")
        raise KgragError(f"no stored answers for question {question!r} in run {run.record.id} (questions: {listed})")
    scores: dict[tuple[int, str], list[str]] = defaultdict(list)
    for s in run.scores:
        if s.question_id == question and not s.metric.startswith("cost."):
            value = "unmeasured" + (f" ({s.note})" if s.note else "") if s.value is None else f"{s.value:.3f}"
            scores[(s.run_index, s.pipeline)].append(f"{s.metric} {value}")
    console.print(render_question(traces, question, {key: ", ".join(v) for key, v in scores.items()}))


@guarded
def eval_export(
    run_id: Annotated[str, typer.Argument(help="Stored run id (see `kgrag eval list`), or `latest`.")],
    jsonl: Annotated[Path, typer.Option("--jsonl", help="Write one JSON object per answer to this file.")],
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Export a stored run as JSONL: a run line (plan, judge set-up, metric settings), then per question,
    pipeline and run the answer with its answer id, the context items, the evidence, every similarity and
    judge request and reply, and every score — all `kgrag eval rescore` needs."""
    from kgrag.evaluation.provenance import write_jsonl

    with open_workspace(workspace) as ws:
        run = ws.eval.get_run(run_id)
        traces = ws.eval.traces(run.record.id)
    count = write_jsonl(traces, jsonl, run.record, run.scores)
    new_console().print(f"exported {count} answers of run {run.record.id} → {jsonl}")


@guarded
def eval_rescore(
    export: Annotated[Path, typer.Argument(help="A run exported with `kgrag eval export RUN --jsonl FILE`.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the rescored run's report (markdown, JSON) here.")
    ] = None,
    debug: DebugOpt = False,
) -> None:
    """Compute every score of an exported run again from the export alone (recorded judge replies and
    similarities, no model, no workspace) and compare it with the stored score; exits 1 on a difference."""
    from kgrag.core.eval_records import EvalRunRecord
    from kgrag.evaluation.reports import render_run, write_run_report
    from kgrag.evaluation.rescore import read_export, rescore
    from kgrag.evaluation.session import finish

    result = rescore(read_export(export))
    console = new_console()
    lines = ["| score | compared | differ |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {n} | {bad} |" for name, (n, bad) in result.series.items()]
    console.print("\n".join(lines))
    if out is not None:
        data = read_export(export).run
        record = EvalRunRecord(str(data.get("run_id")), "run", 0.0, str(data.get("dataset") or ""), "rescored", data)
        run = finish(record, result.scores)
        console.print(render_run(run))
        console.print("written: " + ", ".join(str(p) for p in write_run_report(run, out).values()))
    if not result.exact:
        for line in result.differences[:10]:
            console.print(f"differs: {line}", style="bold red")
        raise typer.Exit(1)
    console.print(f"every score of {len(result.series)} series reproduced exactly ({len(result.scores)} values)")
