"""Query-embedding latency under CPU load for the thread settings of the `onnx` embedder: onnxruntime's
default intra-op threads with batches one after another (kgrag's setting before, and still its default),
one thread per encoder run (`embedding.intra_op_threads = 1`), and a large call's batches side by side
(`embedding.threads` = the cores), with and without load, in the same run.

    .venv/bin/python bench/bench_embed_threads.py [--queries 60] [--load 2] [--batch 128]

The load is generated here: ``--load`` busy-loop processes (pure Python spinning) started for the loaded
phase and stopped after it. Prints p50/p95 milliseconds of a single query's embedding and the seconds of
one indexing-sized call (``--batch`` passages of the sample corpus), per setting and phase, with the
ratios old/new and loaded/quiet, and checks that both settings give the same vectors. Queries are
GraphRAG-Bench Medical questions when the dataset is present, else sentences of the sample corpus.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import time
from pathlib import Path

import numpy as np

from kgrag.models.onnx_embedder import DEFAULT_MINILM, OnnxEmbedder, available_cores, resolve_onnx_files

REPO = Path(__file__).resolve().parents[1]
MEDICAL = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical" / "questions.json"
SAMPLE = REPO / "examples" / "sample" / "docs"


def _spin() -> None:
    while True:
        pass


def _texts(n_queries: int, n_batch: int) -> tuple[list[str], list[str]]:
    paragraphs = [p.strip() for path in sorted(SAMPLE.glob("*.md")) for p in path.read_text().split("\n\n")]
    paragraphs = [p for p in paragraphs if len(p) > 80]
    if MEDICAL.exists():
        queries = [q["question"] for q in json.loads(MEDICAL.read_text())[:n_queries]]
    else:
        queries = [p.split(". ")[0] for p in paragraphs][:n_queries]
    batch = (paragraphs * (n_batch // max(1, len(paragraphs)) + 1))[:n_batch]
    return queries, batch


def _phase(settings: dict[str, OnnxEmbedder], queries: list[str], batch: list[str]) -> dict[str, tuple[float, ...]]:
    """Per setting: p50 and p95 ms of one query, and seconds of the batch call (settings interleaved per
    query so that load changes hit both alike)."""
    times: dict[str, list[float]] = {name: [] for name in settings}
    for query in queries:
        for name, embedder in settings.items():
            started = time.perf_counter()
            embedder.embed([query])
            times[name].append(1000 * (time.perf_counter() - started))
    out = {}
    for name, embedder in settings.items():
        started = time.perf_counter()
        embedder.embed(batch)
        seconds = time.perf_counter() - started
        ordered = sorted(times[name])
        out[name] = (statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))], seconds)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--load", type=int, default=2, help="busy-loop processes in the loaded phase")
    parser.add_argument("--batch", type=int, default=128, help="passages in the indexing-sized call")
    args = parser.parse_args()
    model, tokenizer = resolve_onnx_files(DEFAULT_MINILM)
    cores = available_cores()
    settings = {
        "old (intra-op default, serial)": OnnxEmbedder(model, tokenizer, threads=1, intra_op_threads=None),
        "one thread per query": OnnxEmbedder(model, tokenizer, intra_op_threads=1),
        f"new, threads={cores} (batches parallel)": OnnxEmbedder(model, tokenizer, threads=cores),
    }
    queries, batch = _texts(args.queries, args.batch)
    vectors = [e.embed(batch[:64]) for e in settings.values()]
    print(f"cores available: {cores}; {len(queries)} queries; batch of {len(batch)} passages")
    drift = max(float(np.abs(vectors[0] - v).max()) for v in vectors[1:])
    print(f"same vectors: max |old - new| = {drift:.2e}")
    quiet = _phase(settings, queries, batch)
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.load)]
    for process in spinners:
        process.start()
    try:
        loaded = _phase(settings, queries, batch)
    finally:
        for process in spinners:
            process.terminate()
            process.join()
    print(f"{'setting':<36} {'phase':<8} {'query p50':>10} {'p95':>8} {'batch s':>8}")
    for phase, figures in (("quiet", quiet), (f"load {args.load}", loaded)):
        for name, (p50, p95, seconds) in figures.items():
            print(f"{name:<36} {phase:<8} {p50:8.1f}ms {p95:6.1f}ms {seconds:8.2f}")
    old, *new_settings = list(settings)
    for phase, figures in (("quiet", quiet), ("loaded", loaded)):
        for new in new_settings:
            print(
                f"{phase}: old / {new}: query p50 {figures[old][0] / figures[new][0]:.2f}x, "
                f"batch {figures[old][2] / figures[new][2]:.2f}x"
            )
    for name in settings:
        print(f"{name}: loaded/quiet query p50 {loaded[name][0] / quiet[name][0]:.2f}x")


if __name__ == "__main__":
    main()
