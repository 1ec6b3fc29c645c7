"""How alike do two hand-written question sets rank the pipelines? The ceiling of a generated set's rank
agreement.

`bench/bench_qgen_filters.py` reports Kendall τ between the pipeline ranking on generated questions and on
hand-written ones. When the pipelines lie close together, two hand-written sets of the same sizes do not
rank them alike either, and no generated set can agree with a hand-written one better than another
hand-written set does. This bench measures that ceiling: it runs every pipeline's LLM-free evidence
recall@k once on all of a dataset's questions, then, for each pair of sizes ``A:B``, draws two disjoint
random sets of A and B questions (``--draws`` times, seeded) and prints the median τ between their
rankings, the 2.5–97.5 % range over the draws and the share of draws with τ ≥ 0.6. CPU seconds, not wall
time, are reported.

    HF_HUB_OFFLINE=1 python bench/bench_rank_ceiling.py WS QUESTIONS --pairs 50:300,100:300,300:300
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from bench_qgen_filters import PIPELINES, Scores, per_question, tau
from kgrag import Workspace
from kgrag.evaluation.datasets import load_dataset


def draw_taus(scores: Scores, a: int, b: int, draws: int, rng: random.Random) -> list[float]:
    """τ between the pipeline rankings of ``draws`` pairs of disjoint random question sets of sizes ``a``, ``b``."""
    n = len(next(iter(scores.values())))
    taus = []
    for _ in range(draws):
        rows = rng.sample(range(n), a + b)
        first = {p: statistics.fmean(v[i] for i in rows[:a]) for p, v in scores.items()}
        second = {p: statistics.fmean(v[i] for i in rows[a:]) for p, v in scores.items()}
        taus.append(tau(first, second))
    return sorted(taus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--pairs", default="50:300,100:300,300:300", help="Set sizes A:B, comma-separated.")
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--pipelines", default=PIPELINES)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    items = load_dataset(args.questions)
    cpu = time.process_time()
    with Workspace.open(args.workspace) as ws:
        scores = per_question(ws.eval.retrieval(items, args.pipelines.split(","), args.k))
    n = len(next(iter(scores.values())))
    print(f"{n} questions with evidence, {len(scores)} pipelines; CPU {time.process_time() - cpu:.0f} s")
    means = {p: statistics.fmean(v) for p, v in scores.items()}
    print("all questions: " + ", ".join(f"{p} {m:.3f}" for p, m in sorted(means.items(), key=lambda x: -x[1])))
    print("\n| sets (hand-written, disjoint) | median τ | 2.5–97.5 % of draws | draws with τ ≥ 0.6 |")
    print("| --- | ---: | --- | ---: |")
    rng = random.Random(args.seed)
    for pair in args.pairs.split(","):
        a, b = (int(x) for x in pair.split(":"))
        if a + b > n:
            print(f"| {a} and {b} | — | more questions than the dataset has ({n}) | — |")
            continue
        taus = draw_taus(scores, a, b, args.draws, rng)
        low, high = taus[int(0.025 * len(taus))], taus[int(0.975 * len(taus)) - 1]
        share = sum(t >= 0.6 for t in taus) / len(taus)
        print(f"| {a} and {b} | {statistics.median(taus):.3f} | [{low:.3f}, {high:.3f}] | {share:.0%} |")


if __name__ == "__main__":
    main()
