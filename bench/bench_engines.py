"""Indexing engines side by side: the sample corpus indexed by ``local`` and by ``ray`` in one run.

Each engine indexes a fresh workspace in its own subprocess (so peak RSS is that engine's alone) and
the table prints wall time and peak memory with ratios against the local engine measured in the same
run. For ``ray`` the Ray start-up is shown apart (``engine.ray-start``: a local Ray takes ~15 s here and
is paid once per run, or never when ``--ray-address`` joins a running cluster), and memory is given for
the driver and for the driver plus every Ray process it started (raylet, GCS, workers), sampled.

    PYTHONPATH=src .venv/bin/python bench/bench_engines.py [--extractor nlp|none] [--embedder onnx|fake] [--cpus 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from kgrag import Workspace
from kgrag.indexing.engines.ray_engine import START_TIME

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "sample" / "docs"


class TreePeak:
    """Peak RSS of this process plus all its descendants, sampled every ``interval`` seconds."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval, self.peak = interval, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for process in [me, *me.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.Error:
                    continue
            self.peak = max(self.peak, total)
            self._stop.wait(self.interval)

    def __enter__(self) -> TreePeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def run_one(engine: str, extractor: str, embedder: str, cpus: int) -> dict[str, float]:
    """Index the sample corpus with ``engine`` into a fresh workspace (in this process)."""
    with tempfile.TemporaryDirectory(prefix=f"kgrag-bench-{engine}-") as tmp:
        settings = {"embedding": {"provider": embedder}, "graph": {"extractor": extractor}}
        indexing = {"engine": engine, "engines": {"ray": {"num_cpus": cpus}}}
        with TreePeak() as tree, Workspace.init(Path(tmp) / "ws", **settings, indexing=indexing) as ws:
            started = time.perf_counter()
            report = ws.index([SAMPLE])
            wall = time.perf_counter() - started
        driver_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return {
            "wall_s": wall,
            "start_s": report.seconds.get(START_TIME, 0.0),
            "driver_mb": driver_mb,
            "tree_mb": tree.peak / 2**20,
            "chunks": report.chunks_written,
            "entities": report.entities,
        }


def measure(engine: str, args: argparse.Namespace) -> dict[str, float]:
    command = [sys.executable, __file__, "--one", engine, "--extractor", args.extractor, "--embedder", args.embedder]
    command += ["--cpus", str(args.cpus)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extractor", default="nlp", choices=["nlp", "none"])
    parser.add_argument("--embedder", default="onnx", choices=["onnx", "fake"])
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.extractor, args.embedder, args.cpus)))
        return
    local, ray = measure("local", args), measure("ray", args)
    print(f"sample corpus ({SAMPLE.relative_to(REPO)}), extractor={args.extractor}, embedder={args.embedder}")
    print(f"{'engine':8} {'wall s':>8} {'vs local':>9} {'w/o start':>10} {'driver MB':>10} {'all procs MB':>13}")
    for name, row in (("local", local), ("ray", ray)):
        work = row["wall_s"] - row["start_s"]
        print(
            f"{name:8} {row['wall_s']:8.1f} {row['wall_s'] / local['wall_s']:8.2f}x {work / local['wall_s']:9.2f}x "
            f"{row['driver_mb']:10.0f} {row['tree_mb']:13.0f}"
        )
    print(
        f"ray start-up: {ray['start_s']:.1f} s; same result: {local['chunks'] == ray['chunks']} chunks, "
        f"{local['entities'] == ray['entities']} entities ({ray['chunks']:.0f} chunks, {ray['entities']:.0f} entities)"
    )
    print(f"memory ratio (all processes) ray/local: {ray['tree_mb'] / local['tree_mb']:.2f}x")


if __name__ == "__main__":
    main()
