"""The learned router on GraphRAG-Bench Medical: `kgrag tune --router`'s cross-validated table for several
fold seeds, plus `auto` with its cue-word heuristics on the same questions (docs/results/learned-router.md).

    .venv/bin/python bench/bench_learned_router.py --workspace DIR --cache DIR [--pipelines a,b] [--seeds 0,1,2]

The workspace must hold Medical indexed with the standard pipeline (chunks, MiniLM vectors, spaCy graph)
and no stored policy (the heuristic `auto` row is measured as `auto` runs there; with a policy stored it
is skipped). Nothing is stored. Every pipeline's per-question outcomes go to the cache directory, so a
second run (other seeds, other pipelines) only fits. Skips when the dataset is absent.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from kgrag import Workspace
from kgrag.documents import TokenCounter
from kgrag.evaluation import load_dataset
from kgrag.retrieval.steps.router_policy import POLICY_KEY
from kgrag.tuning.router import fingerprint
from kgrag.tuning.router_fit import ALL, OutcomeCache, Scorer, collect_rows, render_markdown

REPO = Path(__file__).resolve().parents[1]
MEDICAL = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical"


def heuristic_auto(ws: Workspace, cache: Path) -> str:
    """Evidence recall (context tokens) of `auto` as it routes without a policy, per question type."""
    if ws.store.meta.get(POLICY_KEY):
        return "(a policy is stored in this workspace: the heuristic `auto` row is skipped)"
    parts = ws.components
    scorer = Scorer(parts.config.evaluation.evidence_overlap, TokenCounter.for_encoding().count)
    rows = collect_rows(
        load_dataset(MEDICAL / "questions.json"),
        ["auto"],
        lambda question, name: ws.retrieve(question, name),
        lambda question: {},
        scorer,
        OutcomeCache(cache / "heuristics", fingerprint(parts)),
    )
    cells = []
    for qtype in [*sorted({r.question_type for r in rows}), ALL]:
        mine = [r for r in rows if qtype in (ALL, r.question_type)]
        recall = statistics.fmean(r.recall["auto"] for r in mine)
        tokens = statistics.fmean(r.tokens["auto"] for r in mine)
        cells.append(f"{recall:.3f} ({tokens:.0f})")
    return "| auto (heuristics) | " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--pipelines", default=None, help="Comma-separated; default: kgrag tune --router's.")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    if not MEDICAL.exists():
        print(f"skipped: {MEDICAL} not found")
        return 0
    names = [p.strip() for p in args.pipelines.split(",")] if args.pipelines else None
    items = load_dataset(MEDICAL / "questions.json")
    with Workspace.open(args.workspace) as ws:
        print(heuristic_auto(ws, args.cache))
        for n, seed in enumerate(int(s) for s in args.seeds.split(",")):
            report = ws.eval.tune_router(items, names, folds=args.folds, seed=seed, save=False, cache=args.cache)
            if n == 0:
                print(f"seed {seed}\n\n{render_markdown(report)}")
            diffs = ", ".join(f"{t} {d:+.3f}" for t, (_, d, _) in report.versus_best.items())
            print(f"seed {seed}: auto − {report.versus_best[ALL][0]}: {diffs}; goal met: {report.goal_met()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
