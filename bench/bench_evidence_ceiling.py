"""The whole-chunk ceiling of evidence recall@k on GraphRAG-Bench Medical, where a pipeline's misses lie,
and which route the ``auto`` router takes per question type (``llm = none``).

    .venv/bin/python bench/bench_evidence_ceiling.py --workspace DIR [--pipeline hybrid] [--sample N] [--k K]

Prints, per question type: the share of evidence sentences some chunk of the index holds (an exact
upper bound of recall with whole chunks), the greedy best-k-chunks oracle, the pipeline's recall, and
where its evidence sentences are (top k, ranks k+1..2k, lower in its pool of ``candidate_pool``, a chunk
outside the pool, no chunk at all). The router's choice is its LLM-free decision (cue words and graph
entities named), computed without running the routed pipeline. Skips when the dataset is absent.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from kgrag import Workspace
from kgrag.evaluation import load_dataset
from kgrag.evaluation.ceiling import MISS_KINDS, ChunkWords, chunk_ceiling, miss_locations
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample
from kgrag.retrieval.steps.route_graph import RouteGraph
from kgrag.retrieval.steps.router import DEFAULT_ROUTES, heuristic_route

REPO = Path(__file__).resolve().parents[1]
MEDICAL = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical"


def ceilings(ws: Workspace, items: list[QAItem], pipeline: str, k: int | None = None) -> None:
    """``k`` chunks per question (default ``retrieval.k``; with 480-token chunks 2 fill the default budget)."""
    k, pool, threshold = (
        k or ws.config.retrieval.k,
        ws.config.retrieval.candidate_pool,
        ws.config.evaluation.evidence_overlap,
    )
    chunks = ChunkWords(c.text for c in ws.store.chunks.iter_all())
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for item in items:
        ceiling = chunk_ceiling(item.evidence, chunks, k, threshold)
        if ceiling is None:
            continue
        ranked = [i.text for i in ws.retrieve(item.question, pipeline, pool).items if i.kind == "chunk"]
        recall = evidence_recall(item.evidence, ranked[:k], threshold) or 0.0
        row = sums[item.question_type]
        for key, value in {
            "n": 1.0,
            "reachable": ceiling.reachable,
            "best_k": ceiling.best_k,
            "recall": recall,
        }.items():
            row[key] += value
        for kind, count in miss_locations(item.evidence, ranked, chunks, k, threshold).items():
            row[kind] += count
    print(
        f"| type | questions | reachable by a chunk | best {k} chunks | {pipeline} recall@{k} | "
        + " | ".join(MISS_KINDS)
        + " |"
    )
    for qtype, row in sorted(sums.items()):
        sentences = sum(row[m] for m in MISS_KINDS) or 1
        cells = " | ".join(f"{row[m] / sentences:.3f}" for m in MISS_KINDS)
        n = row["n"]
        bounds = f"{row['reachable'] / n:.3f} | {row['best_k'] / n:.3f} | {row['recall'] / n:.3f}"
        print(f"| {qtype} | {n:.0f} | {bounds} | {cells} |")


def routes(ws: Workspace, items: list[QAItem]) -> None:
    """The LLM-free router decision per question type (no community reports: global → multi-hop)."""
    graph = RouteGraph(ws.components.query_context.graph_index())
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for item in items:
        route, _ = heuristic_route(item.question, graph)
        counts[item.question_type][route] += 1
    for qtype, row in sorted(counts.items()):
        shares = ", ".join(f"{route} → {DEFAULT_ROUTES[route]} {n}" for route, n in row.most_common())
        print(f"router | {qtype} | {shares}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--pipeline", default="hybrid")
    parser.add_argument("--sample", type=int, default=None, help="stratified sample size (seed 0)")
    parser.add_argument("--k", type=int, default=None, help="chunks per question (default: retrieval.k)")
    args = parser.parse_args()
    if not MEDICAL.exists():
        print(f"skipped: {MEDICAL} not found")
        return 0
    items = load_dataset(MEDICAL / "questions.json")
    items = stratified_sample(items, args.sample, seed=0) if args.sample else items
    with Workspace.open(args.workspace, retrieval={"context_tokens": 10**6}) as ws:
        routes(ws, items)
        ceilings(ws, items, args.pipeline, args.k)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
