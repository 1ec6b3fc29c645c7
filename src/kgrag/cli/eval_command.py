"""Body of `kgrag eval retrieval`, kept apart so the CLI module stays a thin list of commands."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from kgrag.core.errors import KgragError
from kgrag.evaluation import evaluate_retrieval, load_dataset, write_report
from kgrag.evaluation.retrieval_eval import render_markdown
from kgrag.retrieval import build_pipeline
from kgrag.workspace import Workspace


def run_retrieval_eval(
    workspace: Path | None, dataset: Path, pipelines: str, k: int, limit: int | None, out: Path | None, console: Console
) -> None:
    names = [p.strip() for p in pipelines.split(",") if p.strip()]
    if not names:
        raise KgragError("--pipelines is empty; name at least one pipeline (see `kgrag pipelines`)")
    items = load_dataset(dataset)[:limit] if limit else load_dataset(dataset)
    with Workspace.open(workspace) as ws:
        for name in names:
            build_pipeline(ws.pipelines, name, ws.config)  # fail fast on an unknown name
        if ws.store.chunks.count() == 0:
            raise KgragError("the workspace has no indexed chunks; run `kgrag index PATH` first")
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task("questions", total=len(items))
            report = evaluate_retrieval(
                items,
                names,
                k,
                ws.config.evaluation.evidence_overlap,
                lambda q, p, kk: ws.retrieve(q, p, kk),
                on_question=lambda: bar.advance(task),
            )
        out_dir = out or ws.path / "reports"
    paths = write_report(report, out_dir, str(dataset))
    console.print(render_markdown(report, str(dataset)))
    console.print("written: " + ", ".join(str(p) for p in paths.values()))
