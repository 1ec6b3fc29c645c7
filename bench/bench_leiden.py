"""Community detection at scale: the registered builders on a synthetic graph of 1M nodes / 5M edges.

The graph has planted structure (groups of ``--group`` nodes; ``--mix`` of the edges land anywhere), so
there is something to find, and random weights 1–3 like aggregated relation weights. Timed, in one
process and on the same graph:

* the baseline: one flat igraph ``community_leiden`` run (what every builder does at least once),
* ``leiden`` (recursive igraph Leiden down to ``max_cluster_size``, our default),
* ``graspologic`` (graspologic-native's hierarchical Leiden, as Microsoft GraphRAG), when installed,
* ``components`` (connected components; the floor).

Each builder's time is printed with its ratio to the same-run baseline (shared machines are noisy; the
ratio is what carries over), with levels, communities per level and modularity per level. Measures
only; asserts nothing.

    .venv/bin/python bench/bench_leiden.py [--nodes 1000000] [--edges 5000000] [--max-cluster-size 25]
"""

from __future__ import annotations

import argparse
import json
import time

import igraph as ig
import numpy as np

from kgrag.communities.builder_settings import LeidenSettings
from kgrag.communities.hierarchy import level_stats
from kgrag.communities.leiden import leiden, seeded
from kgrag.config import CommunitiesConfig
from kgrag.core.builtins import new_registry


def synthetic(nodes: int, edges: int, group: int, mix: float, seed: int) -> ig.Graph:
    rng = np.random.default_rng(seed)
    source = rng.integers(0, nodes, edges)
    local = source - source % group + rng.integers(0, group, edges)
    anywhere = rng.integers(0, nodes, edges)
    target = np.where(rng.random(edges) < mix, anywhere, np.minimum(local, nodes - 1))
    keep = source != target
    graph = ig.Graph(n=nodes, edges=np.column_stack((source[keep], target[keep])).tolist(), directed=False)
    graph.es["weight"] = rng.integers(1, 4, int(keep.sum())).astype(float).tolist()
    return graph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--edges", type=int, default=5_000_000)
    parser.add_argument("--group", type=int, default=200)
    parser.add_argument("--mix", type=float, default=0.2)
    parser.add_argument("--max-cluster-size", type=int, default=25)
    parser.add_argument("--builders", default="leiden,graspologic,components")
    args = parser.parse_args()
    started = time.perf_counter()
    graph = synthetic(args.nodes, args.edges, args.group, args.mix, 7)
    print(f"graph: {graph.vcount():,} nodes, {graph.ecount():,} edges, built in {time.perf_counter() - started:.1f} s")
    config = CommunitiesConfig(builders={"leiden": {"max_cluster_size": args.max_cluster_size}})
    knobs = config.entry_settings("builders", "leiden", LeidenSettings)
    started = time.perf_counter()
    with seeded(knobs.seed):
        flat = leiden(graph, knobs.resolution, knobs.iterations)
    baseline = time.perf_counter() - started
    print(f"baseline flat igraph Leiden: {baseline:.1f} s, {int(flat.max()) + 1:,} communities")
    registry = new_registry("community_builder")
    results = {"baseline_s": round(baseline, 2)}
    for name in args.builders.split(","):
        try:
            builder = registry.create(name, config)
            started = time.perf_counter()
            hierarchy = builder.build(graph)
        except Exception as exc:  # an optional builder may be missing; report and go on
            print(f"{name}: skipped ({exc})")
            continue
        seconds = time.perf_counter() - started
        stats = level_stats(graph, hierarchy)
        counts = [s.communities for s in stats]
        q = [round(s.modularity, 3) for s in stats]
        print(
            f"{name}: {seconds:.1f} s = {seconds / baseline:.2f}× baseline; levels {len(stats)}; "
            f"communities per level {counts}; modularity {q}"
        )
        results[name] = {
            "seconds": round(seconds, 2),
            "ratio": round(seconds / baseline, 2),
            "levels": counts,
            "modularity": q,
        }
    print(json.dumps(results))


if __name__ == "__main__":
    main()
