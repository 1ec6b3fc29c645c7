"""`kgrag compare`, `kgrag tune` and `kgrag tune-reranker`: one question through several pipelines side
by side, and fitting the λ of the ``paths`` pipeline or the ``fused`` reranker's weights on a labelled
dataset. Parse, call a sub-API, print."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, final

import typer
from rich.table import Table

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace, pipeline_names
from kgrag.cli.ranges import MAX_BINS, MAX_ITEMS, MAX_K, MAX_SEED
from kgrag.core.context import RouteDecision
from kgrag.core.errors import KgragError

if TYPE_CHECKING:
    from typing import NotRequired

    from typing_extensions import TypedDict

    from kgrag.core.context import ContextItem, RouteDict
    from kgrag.documents.provenance import SourceDict, SourceRef
    from kgrag.evaluation.datasets import QAItem
    from kgrag.evaluation.stats.cells import IntervalCell
    from kgrag.tuning.lambda_fit import TuneReport
    from kgrag.tuning.reranker_fit import RerankerTuneReport
    from kgrag.workspace import QueryResponse
    from kgrag.workspace.query_api import PipelineOutcome

SNIPPET = 90

if TYPE_CHECKING:

    class CitedRow(TypedDict):
        """A cited passage: its id, the start of its text, where it comes from (when known)."""

        id: str
        text: str
        source: NotRequired[SourceDict]

    @final
    class SummaryRow(TypedDict):
        """What one pipeline did with the question (``kgrag compare --json``)."""

        pipeline: str
        answer: str
        citations: list[CitedRow]
        context_items: dict[str, int]
        context_tokens: int
        retrieval_ms: float
        generation_ms: float
        prompt_tokens: int
        cost_line: str
        route: RouteDict | None

    @final
    class FailedRow(TypedDict):
        """A pipeline that could not answer, and why."""

        pipeline: str
        error: str | None


# Options shared by the fitting commands (`kgrag tune <what>` and the older spellings).
DatasetOpt = Annotated[Path, typer.Option("--dataset", help="GraphRAG-Bench .json or .jsonl questions with evidence.")]
LimitOpt = Annotated[int | None, typer.Option("--limit", min=1, max=MAX_ITEMS, help="Only the first N questions.")]
HoldoutOpt = Annotated[
    float,
    typer.Option(
        "--holdout",
        help="Share of the questions held out (stratified by type) to score the fitted values on; 0 = fit on all.",
    ),
]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED, help="Seed of the held-out sample.")]
LambdaPipelineOpt = Annotated[str, typer.Option("--pipeline", "-p", help="The λ-fused pipeline to tune.")]
ScoredKOpt = Annotated[int, typer.Option("--k", min=1, max=MAX_K, help="Passages scored per question.")]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Report only; store nothing.")]


def _cited(cid: str, items: dict[str, ContextItem], sources: dict[str, SourceRef]) -> CitedRow:
    row: CitedRow = {"id": cid, "text": " ".join(items[cid].text.split())[:SNIPPET] if cid in items else ""}
    if cid in sources:
        row["source"] = sources[cid].to_dict()
    return row


def summary_row(response: QueryResponse, sources: dict[str, SourceRef] | None = None) -> SummaryRow:
    """What one pipeline did with the question: answer, cited passages (with where each comes from),
    context size, time, cost and, for a routing pipeline, the route it took."""
    sources = sources or {}
    items = {item.id: item for item in response.result.items}
    cost = response.cost
    return {
        "pipeline": response.result.pipeline,
        "answer": response.answer.text,
        "citations": [_cited(cid, items, sources) for cid in response.answer.citations],
        "context_items": {
            kind: sum(1 for i in items.values() if i.kind == kind) for kind in ("chunk", "entity", "relation", "path")
        },
        "context_tokens": response.context_tokens,
        "retrieval_ms": response.timings_ms.get("retrieval", 0.0),
        "generation_ms": response.timings_ms.get("generation", 0.0),
        "prompt_tokens": cost.prompt_tokens,
        "cost_line": cost.line,
        "route": response.route.to_dict() if response.route else None,
    }


def outcome_row(outcome: PipelineOutcome, sources: dict[str, SourceRef]) -> SummaryRow | FailedRow:
    """:func:`summary_row` of a pipeline that answered, else its name and why it could not."""
    if outcome.response is None:
        return {"pipeline": outcome.pipeline, "error": outcome.error}
    return summary_row(outcome.response, sources)


def _table_row(row: SummaryRow | FailedRow, sources: dict[str, SourceRef]) -> tuple[str, ...]:
    from kgrag.cli.answers import source_line

    if "error" in row:
        return (row["pipeline"], f"could not answer: {row['error']}", "-", "-", "-")
    cited = "\n".join(f"{c['id']}: {c['text']}…\n  ↳ {source_line(c['id'], sources)}" for c in row["citations"]) or "-"
    context = f"{row['context_tokens']} tok\n" + ", ".join(
        _count(n, kind) for kind, n in row["context_items"].items() if n
    )
    route = f"\nroute: {RouteDecision(**row['route']).line()}" if row["route"] else ""
    cost_text = f"{row['retrieval_ms']:.0f} ms retrieval\n{row['cost_line'] or 'no LLM call'}"
    return (row["pipeline"] + route, shortened(row["answer"], ANSWER_CHARS), cited, context, cost_text)


ANSWER_CHARS = 700
"""Longest answer a table cell shows; a longer one is cut at a word and ends in "…" (``--json`` has it whole)."""


def shortened(text: str, limit: int) -> str:
    """``text``, or its first words up to ``limit`` characters followed by " …"."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(None, 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip() + " …"


def _count(n: int, kind: str) -> str:
    """ "1 chunk", "5 chunks", "7 entities"."""
    if n == 1:
        return f"1 {kind}"
    return f"{n} {kind[:-1]}ies" if kind.endswith("y") else f"{n} {kind}s"


@guarded
def compare(
    question: Annotated[str, typer.Argument(help="The question.")],
    pipelines: Annotated[
        str, typer.Option("--pipelines", "-p", help="Comma-separated pipeline names.")
    ] = "hybrid,graph-local,ppr,auto",
    k: Annotated[int | None, typer.Option("--k", min=1, max=MAX_K, help="Passages per pipeline.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Answer one question with several pipelines: answers, cited passages, context tokens and cost."""
    from kgrag.cli.answers import response_sources

    with open_workspace(workspace) as ws:
        outcomes = ws.querying.compare(question, pipeline_names(pipelines), k)
        sources = response_sources(ws, [o.response for o in outcomes if o.response is not None])
    rows = [outcome_row(o, sources) for o in outcomes]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
    else:
        table = Table("pipeline", "answer", "cited passages", "context", "cost", show_lines=True)
        for row in rows:
            table.add_row(*_table_row(row, sources))
        new_console().print(table)
    if all(o.response is None for o in outcomes):
        raise typer.Exit(1)


def labelled_questions(dataset: Path, limit: int | None) -> list[QAItem]:
    """The dataset's questions (the first ``limit`` when given); loaded lazily, so `kgrag --help` stays light."""
    from kgrag.evaluation import load_dataset

    items = load_dataset(dataset)
    return items[:limit] if limit else items


@guarded
def tune(
    dataset: DatasetOpt,
    pipeline: LambdaPipelineOpt = "paths",
    k: ScoredKOpt = 5,
    limit: LimitOpt = None,
    holdout: HoldoutOpt = 0.0,
    seed: SeedOpt = 0,
    dry_run: DryRunOpt = False,
    router: Annotated[bool, typer.Option("--router", help="Fit auto's routing policy instead of λ.")] = False,
    pipelines: Annotated[
        str | None, typer.Option("--pipelines", help="With --router: comma-separated pipelines it may choose.")
    ] = None,
    folds: Annotated[
        int, typer.Option("--folds", min=2, max=MAX_BINS, help="With --router: cross-validation folds.")
    ] = 5,
    cache: Annotated[
        Path | None, typer.Option("--cache", help="With --router: directory keeping per-question outcomes to resume.")
    ] = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Fit λ (dense vs graph weight) of the `paths` pipeline on labelled questions and store it; with
    --router, fit and store the policy `auto` routes questions by."""
    if not router and (pipelines is not None or cache is not None or folds != 5):
        raise KgragError("--pipelines, --folds and --cache belong to --router; add --router or drop them")
    if router and (holdout or pipeline != "paths" or k != 5):
        raise KgragError("--pipeline, --k and --holdout fit λ; --router uses --pipelines and --folds instead")
    items = labelled_questions(dataset, limit)
    if router:
        from kgrag.cli.router_command import run_router_tuning

        run_router_tuning(items, workspace, pipelines, folds, seed, dry_run, cache, new_console())
        return
    fit_lambda(items, pipeline, k, holdout, seed, dry_run, workspace)


def fit_lambda(
    items: list[QAItem], pipeline: str, k: int, holdout: float, seed: int, dry_run: bool, workspace: Path | None
) -> None:
    """Fit λ of ``pipeline`` on ``items``, print the grid (and the held-out table) and say what was stored."""
    with open_workspace(workspace) as ws:
        report = ws.eval.tune(items, pipeline, k, save=not dry_run, holdout=holdout, seed=seed)
    table = Table("λ", f"evidence recall@{k}")
    for lam, recall in report.recall_by_lambda.items():
        table.add_row(f"{lam:.1f}" + (" ←" if lam == report.best else ""), f"{recall:.3f}")
    console = new_console()
    console.print(table)
    if report.holdout is not None:
        console.print(holdout_table(report))
    verb = "would store" if dry_run else "stored"
    console.print(f"{verb} λ = {report.best} for {pipeline} ({report.questions} questions)")


def holdout_table(report: TuneReport) -> Table:
    """Held-out recall per question type at the fitted λ, the λ in use and dense alone."""
    held = report.holdout
    assert held is not None
    types = list(held.recall["fitted"])
    title = f"held out: {held.questions} questions ({held.share:.0%}, seed {held.seed})"
    table = Table("", *types, title=title)
    labels = {
        "fitted": f"fitted λ {report.best:.1f}",
        "current": f"current λ {held.current_lambda:.1f}",
        "dense": "dense (λ 1.0)",
    }
    for row, label in labels.items():
        cells = held.intervals.get(row, {})
        table.add_row(label, *(_with_interval(held.recall[row].get(t, 0.0), cells.get(t)) for t in types))
    for row, diffs in held.differences.items():
        table.add_row(row, *(_with_interval(None, diffs.get(t), signed=True) for t in types))
    return table


def _with_interval(value: float | None, cell: IntervalCell | None, signed: bool = False) -> str:
    """``0.512 [0.43, 0.60] n=12`` (or just the value when there is no interval)."""
    mean = cell.get("mean") if cell else value
    if mean is None:
        return "–"
    text = f"{mean:+.3f}" if signed else f"{mean:.3f}"
    ci = cell.get("ci95") if cell else None
    if ci:
        low, high = ci
        text += f" [{low:+.2f}, {high:+.2f}]" if signed else f" [{low:.2f}, {high:.2f}]"
    return text + (f" n={cell['n']}" if cell else "")


@guarded
def tune_reranker(
    dataset: DatasetOpt,
    limit: LimitOpt = None,
    holdout: HoldoutOpt = 0.0,
    seed: SeedOpt = 0,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Fit the `fused` reranker's weights on labelled questions and print the [rerank] lines to use them."""
    items = labelled_questions(dataset, limit)
    with open_workspace(workspace) as ws:
        report = ws.eval.tune_reranker(items, holdout=holdout, seed=seed)
    console = new_console()
    console.print(reranker_weights_table(report))
    if report.holdout:
        console.print(reranker_holdout_table(report))
    console.print("Put these lines in kgrag.toml to use the fitted weights:")
    console.print(report.toml(), markup=False, highlight=False)


def reranker_weights_table(report: RerankerTuneReport) -> Table:
    """Weights in use and fitted, with evidence recall on the questions they were fitted on."""
    title = f"fused reranker on {report.questions} questions (k {report.k}, {report.budget} context tokens)"
    table = Table("weights", "similarity", "first stage", "BM25 rank", "dense rank", "evidence recall", title=title)
    for label, weights, recall in (
        ("in use", report.current, report.recall_current),
        ("fitted", report.fitted, report.recall_fitted),
    ):
        values = (weights.similarity, weights.first_stage, weights.bm25_rank, weights.dense_rank)
        table.add_row(label, *(f"{v:g}" for v in values), f"{recall:.3f}")
    return table


def reranker_holdout_table(report: RerankerTuneReport) -> Table:
    """Held-out recall per question type at the fitted weights, the weights in use and coverage alone."""
    types = list(report.holdout["fitted"])
    table = Table("", *types, title=f"held out: {report.holdout_questions} questions")
    for row, label in (("fitted", "fitted"), ("current", "in use"), ("coverage", "coverage alone (lexical)")):
        table.add_row(label, *(f"{report.holdout[row].get(t, 0.0):.3f}" for t in types))
    for row, cells in report.holdout_differences.items():
        table.add_row(row, *(_with_interval(None, cells.get(t), signed=True) for t in types))
    return table
