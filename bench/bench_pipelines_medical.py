"""Evidence recall@5 per pipeline × question type on GraphRAG-Bench Medical at the default context
budget (``llm = none``, MiniLM), with context tokens, p50 latency and the router's choice per type.

    .venv/bin/python bench/bench_pipelines_medical.py --workspace DIR [--pipelines a,b] [--limit N] [--out DIR]
    .venv/bin/python bench/bench_pipelines_medical.py --summary --out DIR [--baseline DIR]

The workspace must hold Medical indexed with the standard pipeline (chunks, MiniLM vectors, spaCy
graph). Each pipeline's report is written as soon as it finishes (``<out>/<pipeline>.json``), so a long
run can be read while it goes; ``--summary`` prints the table from what is there, and with
``--baseline`` (another run's ``--out``, e.g. the same pipelines on a workspace chunked differently)
the difference of each cell to the same pipeline there. Skips when the dataset is absent.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path

from kgrag import Workspace
from kgrag.evaluation import load_dataset
from kgrag.evaluation.retrieval_eval import evaluate_retrieval

REPO = Path(__file__).resolve().parents[1]
MEDICAL = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical"
ALL = (
    "hybrid,rerank,graph-local,ppr,ppr-passages,paths,auto,dense,bm25,qe,hyde,combined,"
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
        cpu = time.process_time()
        report = evaluate_retrieval(items, [name], 5, threshold, retrieve)
        cpu = time.process_time() - cpu
        payload = {"table": report.table(), "chunks_only": report.table("chunk_recall"),
                   "context_tokens": report.mean_context_tokens(), "latency_ms": report.latency(),
                   "cpu_s": round(cpu, 1), "outcomes": [asdict(o) for o in report.outcomes]}  # fmt: skip
        if name == "auto":
            payload["routes"] = [[t, p, n] for (t, p), n in sorted(routes.items())]
        (out / f"{name}.json").write_text(json.dumps(payload), encoding="utf-8")
        print(name, json.dumps(payload["table"]), payload["context_tokens"], f"cpu {cpu:.0f} s", flush=True)


def _load(out: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    return {path.stem: json.loads(path.read_text()) for path in sorted(out.glob("*.json"))}


def _cells(name: str, data: dict, base: dict | None) -> str:  # type: ignore[type-arg]
    table, chunks = data["table"][name], data["chunks_only"][name]
    cells = []
    for qtype in sorted(table):
        delta = f" {table[qtype] - base['table'][name][qtype]:+.3f}" if base else ""
        cells.append(f"{table[qtype]:.3f}{delta} ({chunks[qtype]:.3f})")
    return " | ".join(cells)


def summary(out: Path, baseline: Path | None = None) -> None:
    runs = _load(out)
    bases = _load(baseline) if baseline else {}
    types = sorted(next(iter(next(iter(runs.values()))["table"].values()))) if runs else []
    rows = ["| pipeline | " + " | ".join(types) + " | context tokens | p50 ms |"]
    for name, data in runs.items():
        tokens = f"{data['context_tokens'][name]:.0f}"
        if name in bases:
            tokens += f" (base {bases[name]['context_tokens'][name]:.0f})"
        rows.append(
            f"| {name} | {_cells(name, data, bases.get(name))} | {tokens} | {data['latency_ms'][name]['p50']:.0f} |"
        )
        if "routes" in data:
            per_type: dict[str, list[str]] = defaultdict(list)
            for qtype, pipeline, n in data["routes"]:
                per_type[qtype].append(f"{pipeline} {n}")
            print("router:", {t: ", ".join(v) for t, v in per_type.items()})
    print("\n".join(rows))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, help="Required unless --summary.")
    parser.add_argument("--pipelines", default=ALL)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--baseline", type=Path, default=None, help="With --summary: another run's --out to diff.")
    args = parser.parse_args()
    if not MEDICAL.exists():
        print(f"skipped: {MEDICAL} not found")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    if args.summary:
        summary(args.out, args.baseline)
        return 0
    if args.workspace is None:
        parser.error("--workspace is required (unless --summary)")
    with Workspace.open(args.workspace) as ws:
        run(ws, [p.strip() for p in args.pipelines.split(",") if p.strip()], args.limit, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
