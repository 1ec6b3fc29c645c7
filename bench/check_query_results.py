"""Same results before and after a speed-up: each pipeline's context (item ids in order), evidence recall and
LLM-free answer per question, written to JSON by one tree and compared with another tree's file.

    .venv/bin/python bench/check_query_results.py --workspace DIR [--dataset DIR] [--pipelines a,b] [--n 250]
        --out after.json [--compare before.json]

Run it once with ``PYTHONPATH`` on the tree before the change (``git archive`` into a temp directory) and
once on the tree after it; ``--compare`` prints, per pipeline, how many questions differ in context ids,
evidence recall or answer text (exit status 1 when any does). Always works on a private copy of the
workspace (queries write bookkeeping). ``llm = none``: the answer is the extractive one.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from bench_query_overhead import DATASETS, _copy
from kgrag import Workspace
from kgrag.evaluation import load_dataset
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample

DEFAULT_PIPELINES = "hybrid,graph-local,ppr,graph-mix-rerank,auto"
OVERLAP = 0.7


def run(workspace: Path, dataset: Path, pipelines: list[str], n: int) -> dict[str, dict[str, Any]]:
    """Pipeline → question id → ids, recall and answer."""
    questions = stratified_sample(load_dataset(dataset / "questions.json"), n, seed=0)
    path = _copy(workspace)
    out: dict[str, dict[str, Any]] = {}
    try:
        with Workspace.open(path, llm={"provider": "none"}) as ws:
            for pipeline in pipelines:
                rows = out.setdefault(pipeline, {})
                for q in questions:
                    response = ws.query(q.question, pipeline)
                    items = response.result.items
                    rows[q.id] = {
                        "ids": [f"{item.kind}:{item.id}" for item in items],
                        "recall": evidence_recall(q.evidence, [item.text for item in items], OVERLAP),
                        "answer": response.answer.text,
                    }
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)
    return out


def compare(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> bool:
    """Print the differing questions per pipeline; True when there are none."""
    same = True
    for pipeline, rows in after.items():
        old = before.get(pipeline, {})
        shared = [q for q in rows if q in old]
        diff = {key: sum(rows[q][key] != old[q][key] for q in shared) for key in ("ids", "recall", "answer")}
        same = same and not any(diff.values()) and len(shared) == len(rows)
        print(f"{pipeline:<18} {len(shared)} questions; differing: " + ", ".join(f"{k} {v}" for k, v in diff.items()))
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, default=DATASETS["medical"], help="folder with questions.json")
    parser.add_argument("--pipelines", default=DEFAULT_PIPELINES)
    parser.add_argument("--n", type=int, default=250, help="questions (stratified sample, seed 0)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path, help="results of the other tree")
    args = parser.parse_args()
    if not (args.dataset / "questions.json").exists():
        print(f"skipped: {args.dataset} is absent")
        return 0
    results = run(args.workspace, args.dataset, args.pipelines.split(","), args.n)
    args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    if args.compare is None:
        return 0
    return 0 if compare(json.loads(args.compare.read_text(encoding="utf-8")), results) else 1


if __name__ == "__main__":
    sys.exit(main())
