"""`kgrag eval report RUN --question ID` and `kgrag eval export RUN --jsonl FILE`: what a stored run's
scores rest on (answers, context items, judge requests and replies), shown or exported."""

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
    """Export a stored run's provenance as JSONL: per question, pipeline and run the answer, the context
    items (ids and text), the answer call's usage and every judge request and reply with its reasoning."""
    from kgrag.evaluation.provenance import write_jsonl

    with open_workspace(workspace) as ws:
        traces = ws.eval.traces(run_id)
    count = write_jsonl(traces, jsonl)
    new_console().print(f"exported {count} answers of run {traces[0].run_id if traces else run_id} → {jsonl}")
