"""Evidence recall@5 per pipeline × question type on GraphRAG-Bench Medical at the default context
budget (``llm = none``, MiniLM), with context tokens, p50 latency and the router's choice per type.

    .venv/bin/python bench/bench_pipelines_medical.py --workspace DIR [--pipelines a,b] [--limit N] [--out DIR]

The workspace must hold Medical indexed with the standard pipeline (chunks, MiniLM vectors, spaCy
graph). Each pipeline's report is written as soon as it finishes (``<out>/<pipeline>.json``), so a long
run can be read while it goes; ``--summary`` prints the table from what is there. Skips when the
dataset is absent.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path

from kgrag import Workspace
from kgrag.evaluation import load_dataset
from kgrag.evaluation.retrieval_eval import evaluate_retrieval

REPO = Path(__file__).resolve().parents[1]
MEDICAL = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical"
ALL = (
    "hybrid,rerank,graph-local,ppr,paths,auto,dense,bm25,qe,hyde,combined,"
    "graph-global,graph-hybrid,graph-mix,graph-mix-rerank"
)


def run(ws: Workspace, pipelines: list[str], limit: int | None, out: Path) -> None:
    items = load_dataset(MEDICAL / "questions.json")
    items = items[:limit] if limit else items
    threshold = ws.config.evaluation.evidence_overlap
    routes: Counter[tuple[str, str]] = Counter()

    def retrieve(question: str, pipeline: str, k: int):  # type: ignore[no-untyped-def]
        result = ws.retrieve(question, pipeline, k)
        if pipeline == "auto":
            routes[(by_question[question], result.trace[0].params["pipeline"])] += 1
        return result

    by_question = {item.question: item.question_type for item in items}
    for name in pipelines:
        report = evaluate_retrieval(items, [name], 5, threshold, retrieve)
        payload = {"table": report.table(), "chunks_only": report.table("chunk_recall"),
                   "context_tokens": report.mean_context_tokens(), "latency_ms": report.latency(),
                   "outcomes": [asdict(o) for o in report.outcomes]}  # fmt: skip
        if name == "auto":
            payload["routes"] = [[t, p, n] for (t, p), n in sorted(routes.items())]
        (out / f"{name}.json").write_text(json.dumps(payload), encoding="utf-8")
        print(name, json.dumps(payload["table"]), payload["context_tokens"], payload["latency_ms"], flush=True)


def summary(out: Path) -> None:
    rows = []
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text())
        name = path.stem
        table, chunks = data["table"][name], data["chunks_only"][name]
        cells = " | ".join(f"{table[t]:.3f} ({chunks[t]:.3f})" for t in sorted(table))
        rows.append(
            f"| {name} | {cells} | {data['context_tokens'][name]:.0f} | {data['latency_ms'][name]['p50']:.0f} |"
        )
        if "routes" in data:
            per_type: dict[str, list[str]] = defaultdict(list)
            for qtype, pipeline, n in data["routes"]:
                per_type[qtype].append(f"{pipeline} {n}")
            print("router:", {t: ", ".join(v) for t, v in per_type.items()})
    print("\n".join(rows))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--pipelines", default=ALL)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args()
    if not MEDICAL.exists():
        print(f"skipped: {MEDICAL} not found")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    if args.summary:
        summary(args.out)
        return 0
    with Workspace.open(args.workspace) as ws:
        run(ws, [p.strip() for p in args.pipelines.split(",") if p.strip()], args.limit, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
