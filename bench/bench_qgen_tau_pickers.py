"""Does picking LLM-free questions by the usability model change how they rank pipelines?

For one indexed workspace and its hand-written questions: generates the LLM-free set (known-item and
two-chunk, ``--best`` per kind above the quality floor) twice from the same candidates, picked by the
usability model (:mod:`kgrag.evaluation.qgen.usability`) and in the order of preferences (the default)
(``learned=False``), runs LLM-free evidence recall@k with each pipeline once on the hand-written set and once
on the union of the two generated sets, and prints Kendall τ between each generated ranking and the
hand-written one and the difference, with a paired bootstrap: the hand-written questions and the union's
questions are resampled (1,000 times), each picker's set being the resampled questions it holds, so
questions both pickers chose move together. CPU seconds, not wall time (the machine is shared).

    HF_HUB_OFFLINE=1 python bench/bench_qgen_tau_pickers.py WS QUESTIONS [--best 50] [--sample 300]

``--sample N`` draws N hand-written questions (``random.Random(seed).sample``), as the Medical runs do.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import defaultdict
from pathlib import Path

from bench_qgen_filters import PIPELINES, generate, tau
from kgrag import Workspace
from kgrag.evaluation.datasets import load_dataset
from kgrag.evaluation.qgen.quality import MIN_QUALITY
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport

Recalls = dict[str, dict[str, float]]  # question id → pipeline → recall


def recalls(report: RetrievalEvalReport) -> Recalls:
    out: Recalls = defaultdict(dict)
    for o in report.outcomes:
        if o.recall is not None:
            out[o.id][o.pipeline] = o.recall
    return dict(out)


def means(ids: list[str], table: Recalls, pipelines: list[str]) -> dict[str, float]:
    return {p: statistics.fmean(table[i][p] for i in ids if p in table[i]) for p in pipelines}


def interval(values: list[float]) -> str:
    values = sorted(values)
    return f"[{values[int(0.025 * len(values))]:+.3f}, {values[int(0.975 * len(values)) - 1]:+.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--best", type=int, default=50)
    parser.add_argument("--sample", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--samples", type=int, default=1000)
    args = parser.parse_args()
    pipelines = PIPELINES.split(",")
    cpu = time.process_time()
    hand_items = load_dataset(args.questions)
    if args.sample:
        hand_items = random.Random(args.seed).sample(hand_items, args.sample)
    with Workspace.open(args.workspace) as ws:
        sets = {n: generate(ws, args.best, True, args.seed, MIN_QUALITY, n == "model") for n in ("model", "before")}
        union = {q.id: q for items in sets.values() for q in items}
        hand = recalls(ws.eval.retrieval(hand_items, pipelines, args.k))
        generated = recalls(ws.eval.retrieval(list(union.values()), pipelines, args.k))
    members = {name: {q.id for q in items} for name, items in sets.items()}
    shared = len(members["model"] & members["before"])
    print(f"CPU {time.process_time() - cpu:.0f} s; {len(union)} generated questions, {shared} picked by both")
    hand_ids, union_ids = sorted(hand), sorted(i for i in generated if i in union)
    rng = random.Random(args.seed)
    draws: dict[str, list[float]] = {"model": [], "before": [], "difference": []}
    for _ in range(args.samples):
        hand_means = means(rng.choices(hand_ids, k=len(hand_ids)), hand, pipelines)
        drawn = rng.choices(union_ids, k=len(union_ids))
        taus = {n: tau(means([i for i in drawn if i in members[n]], generated, pipelines), hand_means) for n in sets}
        draws["model"].append(taus["model"])
        draws["before"].append(taus["before"])
        draws["difference"].append(taus["model"] - taus["before"])
    hand_means = means(hand_ids, hand, pipelines)
    point = {n: tau(means([i for i in union_ids if i in members[n]], generated, pipelines), hand_means) for n in sets}
    print("| generated set | n | Kendall τ with hand-written [95% CI] |\n| --- | ---: | --- |")
    for name, label in (("before", "the preferences (the default)"), ("model", "the usability model")):
        print(f"| picked by {label} | {len(members[name])} | {point[name]:.3f} {interval(draws[name])} |")
    diff = point["model"] - point["before"]
    print(f"| model − before (paired) | | {diff:+.3f} {interval(draws['difference'])} |")


if __name__ == "__main__":
    main()
