"""Entity-resolution planning time and peak memory on synthetic graphs of 25k → 100k entities.

Each size runs in its own process (peak RSS is per process), on a graph built to look like an extracted
one: 384-dimensional unit vectors around cluster centres with a few near-duplicates per cluster, ten
entity types and about two relations per entity. Printed: seconds and peak RSS per size and the growth
from the smallest size (4× the entities: linear growth is 4×, quadratic 16×). Targets at 100k entities:
< 60 s and < 2 GB. Run: ``python bench/bench_resolution.py [--sizes 25000,50000,100000] [--blocker kmeans]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

from kgrag.config.denoise import DenoiseConfig
from kgrag.denoise.resolve import plan_resolution, strategies
from kgrag.denoise.types import ResolutionGraph

DIMENSION = 384


def synthetic_graph(n: int, seed: int = 0) -> ResolutionGraph:
    """``n`` entities in clusters of ~4 near-duplicates around random centres; random sparse edges."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, n // 4), DIMENSION)).astype(np.float32)
    owner = rng.integers(0, len(centres), n)
    vectors = centres[owner] + 0.35 * rng.standard_normal((n, DIMENSION)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    sources, targets = rng.integers(0, n, 2 * n), rng.integers(0, n, 2 * n)
    adjacency: list[list[int]] = [[] for _ in range(n)]
    for a, b in zip(sources.tolist(), targets.tolist(), strict=True):
        if a != b:
            adjacency[a].append(b)
            adjacency[b].append(a)
    return ResolutionGraph(
        ids=[f"e{i}" for i in range(n)],
        keys=[f"k{i}" for i in range(n)],
        names=[f"entity {i}" for i in range(n)],
        types=[f"t{i % 10}" for i in range(n)],
        mentions=rng.integers(1, 10, n),
        vectors=vectors,
        neighbours=[np.asarray(sorted(set(a)), dtype=np.int64) for a in adjacency],
    )


def one(n: int, blocker: str, matcher: str) -> dict[str, float]:
    graph = synthetic_graph(n)
    config = DenoiseConfig(blocker=blocker, matcher=matcher, threshold=0.5, groupers={"greedy": {"anchor_floor": 0.5}})
    started = time.perf_counter()
    plan = plan_resolution(graph, config, strategies(config))
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "entities": n,
        "seconds": seconds,
        "peak_mb": peak_mb,
        "merged": plan.merged_away,
        "blocks": plan.counts["blocks"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="25000,50000,100000")
    parser.add_argument("--blocker", default="kmeans")
    parser.add_argument("--matcher", default="ego")
    parser.add_argument("--one", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.blocker, args.matcher)))
        return 0
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        command = [sys.executable, __file__, "--one", str(n), "--blocker", args.blocker, "--matcher", args.matcher]
        rows.append(json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout))
    base = rows[0]
    print(f"blocker={args.blocker} matcher={args.matcher} (peak RSS includes the synthetic graph itself)")
    for r in rows:
        print(
            f"{int(r['entities']):>7} entities: {r['seconds']:6.1f} s  peak {r['peak_mb']:6.0f} MB  "
            f"blocks {int(r['blocks']):>4}  merged {int(r['merged']):>6}  "
            f"growth ×{r['seconds'] / base['seconds']:.1f} time, ×{r['peak_mb'] / base['peak_mb']:.1f} memory "
            f"for ×{r['entities'] / base['entities']:.0f} entities"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
