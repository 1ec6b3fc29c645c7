"""Evidence recall@5 on GraphRAG-Bench Medical against chunk size, at one context budget for every size.

The default chunk follows the embedder's window (80% of MiniLM's 256 word pieces, ~205 cl100k tokens), so
about four chunks fill the default 1,000-token budget. This bench re-chunks Medical at other sizes (a
chunk-only index: ``no-graph`` pipeline, no extractor, so each size costs one embedding pass) and runs
the chunk pipelines over the same questions, printing recall per question type with the context tokens
each hands over and the difference to the default size measured in the same run. ``llm = none``.

    .venv/bin/python bench/bench_chunk_size.py [--sizes 0,330:40,480:56] [--limit 400] [--work /tmp/kgrag-chunks]

Size ``0`` is the default (automatic) chunking; ``SIZE:OVERLAP`` sets both, a bare size takes a 12% overlap
as the default does.
Skips (exit 0) when the dataset is absent.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kgrag import Workspace
from kgrag.evaluation import load_dataset
from kgrag.evaluation.sampling import stratified_sample
from kgrag.testing.workspace_toml import write_workspace_toml

REPO = Path(__file__).resolve().parents[1]
MEDICAL = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical"
TYPES = ("Fact Retrieval", "Complex Reasoning", "Contextual Summarize", "Creative Generation", "All")


def parse_size(text: str) -> tuple[int, int]:
    """``"480"`` → (480, 12% overlap); ``"480:56"`` → (480, 56); ``"0"`` → the default chunking."""
    size, _, overlap = text.partition(":")
    return int(size), int(overlap) if overlap else max(1, round(int(size) * 0.12))


def workspace_settings(size: int, overlap: int) -> dict[str, str]:
    """A chunk-only Medical workspace; ``size`` 0 keeps the automatic chunk size."""
    chunking = {"chunking.size_tokens": str(size), "chunking.overlap_tokens": str(overlap)} if size else {}
    return {
        'documents.loaders.".json".text_field': '"context"',
        'documents.loaders.".json".id_field': '"corpus_name"',
        **chunking,
        "indexing.pipeline": '"no-graph"',
        "graph.extractor": '"none"',
    }


def measure(size: int, overlap: int, items: list, pipelines: list[str], work: Path) -> dict[str, dict[str, float]]:  # type: ignore[type-arg]
    root = work / f"size-{size or 'auto'}"
    root.mkdir(parents=True, exist_ok=True)
    write_workspace_toml(root, workspace_settings(size, overlap))
    with Workspace.open(root) as ws:
        started = time.perf_counter()
        ws.index([MEDICAL / "corpus.json"])
        print(f"size {size or 'auto'}: indexed in {time.perf_counter() - started:.1f} s", flush=True)
        report = ws.eval.retrieval(items, pipelines, 5)
        tokens = report.mean_context_tokens()
        return {p: {**row, "context_tokens": tokens[p]} for p, row in report.table().items()}


def print_table(results: dict[int, dict[str, dict[str, float]]]) -> None:
    base = results.get(0)
    print("| size | pipeline | " + " | ".join(TYPES) + " | context tokens |")
    print("|" + " --- |" * (len(TYPES) + 3))
    for size, rows in results.items():
        for pipeline, row in rows.items():
            cells = []
            for kind in TYPES:
                delta = f" ({row[kind] - base[pipeline][kind]:+.3f})" if base and size else ""
                cells.append(f"{row[kind]:.3f}{delta}")
            print(f"| {size or 'auto'} | {pipeline} | " + " | ".join(cells) + f" | {row['context_tokens']:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes", default="0,330:40,480:56", help="Chunk sizes (SIZE or SIZE:OVERLAP tokens); 0 = the default."
    )
    parser.add_argument("--pipelines", default="hybrid,rerank,bm25,dense")
    parser.add_argument("--limit", type=int, default=0, help="Stratified sample of this many questions (0 = all).")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kgrag-chunks"))
    args = parser.parse_args()
    if not (MEDICAL / "corpus.json").exists():
        print(f"skipped: {MEDICAL} is absent")
        sys.exit(0)
    items = load_dataset(MEDICAL / "questions.json")
    items = stratified_sample(items, args.limit, seed=7) if args.limit else items
    sizes = sorted(parse_size(s) for s in args.sizes.split(","))
    results = {size: measure(size, overlap, items, args.pipelines.split(","), args.work) for size, overlap in sizes}
    print_table(results)
    (args.work / "results.json").write_text(json.dumps({str(k): v for k, v in results.items()}), encoding="utf-8")


if __name__ == "__main__":
    main()
