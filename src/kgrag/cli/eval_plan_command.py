"""`kgrag eval plan`: how many questions separate two pipelines, from a pilot's per-question scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.core.errors import KgragError

Pilot = dict[str, dict[str, dict[str, float]]]  # pipeline → metric → question id → score


def _from_retrieval_json(path: Path) -> Pilot:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise KgragError(f"{path}: not a readable JSON report ({exc})") from exc
    outcomes = payload.get("outcomes") if isinstance(payload, dict) else None
    if not isinstance(outcomes, list):
        raise KgragError(f"{path}: no 'outcomes' list; give a retrieval_eval.json or a stored run id")
    pilot: Pilot = {}
    for o in outcomes:
        if not isinstance(o, dict) or "pipeline" not in o or "id" not in o:
            raise KgragError(f"{path}: an outcome lacks 'pipeline' or 'id'")
        for metric in ("recall", "chunk_recall"):
            if isinstance(o.get(metric), int | float):
                pilot.setdefault(o["pipeline"], {}).setdefault(metric, {})[str(o["id"])] = float(o[metric])
    return pilot


def _from_run(run_id: str, workspace: Path | None) -> tuple[Pilot, str | None]:
    """A stored run's per-question scores and its headline metric (the metric its verdict line is on:
    evidence recall when measured)."""
    from kgrag.evaluation.aggregate import question_values
    from kgrag.evaluation.reports import headline_metric

    with open_workspace(workspace) as ws:
        run = ws.eval.get_run(run_id)
    values = question_values(run.scores)
    pilot = {p: {m: {q: v for q, (_, v) in qs.items()} for m, qs in ms.items()} for p, ms in values.items()}
    return pilot, headline_metric(run.summary)


def _scores(pilot: Pilot, metric: str | None, default: str | None) -> tuple[str, dict[str, dict[str, float]]]:
    """The scores of ``metric``; without one, of ``default`` (the pilot's headline), else the first."""
    metrics = sorted({m for ms in pilot.values() for m in ms})
    chosen = metric or (default if default in metrics else metrics[0] if metrics else "")
    if chosen not in metrics:
        raise KgragError(f"--metric {chosen!r} is not in the pilot; it has: {', '.join(metrics) or 'no scores'}")
    return chosen, {p: ms[chosen] for p, ms in pilot.items() if chosen in ms}


def _print(rows: list[dict[str, Any]], metric: str, difference: float, power: float) -> None:
    from rich.table import Table

    table = Table("pipeline − baseline", "pilot n", "observed Δ", "paired SD", f"n for Δ={difference}",
                  f"power at Δ={difference} now", "n for observed Δ")  # fmt: skip
    for r in rows:
        table.add_row(
            f"{r['pipeline']} − {r['baseline']}",
            str(r["pilot_questions"]),
            f"{r['observed_difference']:+.3f}",
            f"{r['paired_sd']:.3f}",
            str(r["questions"] or "–"),
            f"{r['power_now']:.2f}",
            str(r["questions_for_observed"] or "–"),
        )
    console = new_console()
    console.print(f"Questions needed on {metric} for {power:.0%} power (paired t-test, Holm-safe level):")
    console.print(table)


@guarded
def eval_plan(
    pilot: Annotated[str, typer.Argument(help="A retrieval_eval.json from `eval retrieval`, or a stored run id.")],
    difference: Annotated[
        float, typer.Option("--difference", min=0.001, help="Smallest difference worth finding (score units).")
    ] = 0.05,
    baseline: Annotated[str | None, typer.Option("--baseline", help="Pipeline to compare against.")] = None,
    metric: Annotated[
        str | None,
        typer.Option("--metric", help="Score to plan for (default: recall; for a stored run, its headline metric)."),
    ] = None,
    power: Annotated[float, typer.Option("--power", min=0.5, max=0.99, help="Chance of finding it.")] = 0.8,
    alpha: Annotated[float, typer.Option("--alpha", min=0.001, max=0.2, help="Family-wise level.")] = 0.05,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """How many questions separate each pipeline from the baseline at a given difference, from a pilot
    run's paired SD (with k pipelines the test is planned at alpha / (k − 1))."""
    from kgrag.evaluation.stats.planner import plan

    path = Path(pilot)
    from_file = path.suffix == ".json" or path.is_file()
    loaded, default = (_from_retrieval_json(path), "recall") if from_file else _from_run(pilot, workspace)
    chosen, scores = _scores(loaded, metric, default)
    names = list(scores)
    base = baseline or names[0]
    if base not in scores:
        raise KgragError(f"--baseline {base!r} is not in the pilot; it has: {', '.join(names)}")
    plans = [p.as_dict() for p in plan(scores, base, difference, power=power, alpha=alpha)]
    if not plans:
        raise KgragError("the pilot has no second pipeline sharing two or more questions with the baseline")
    if as_json:
        typer.echo(json.dumps({"metric": chosen, "power": power, "alpha": alpha, "plans": plans}, indent=2))
    else:
        _print(plans, chosen, difference, power)
