"""Query-embedding latency under CPU load for the thread settings of a local embedder, with and without
load, in the same run.

``--provider onnx`` (default): onnxruntime's default intra-op threads with batches one after another
(kgrag's setting before, and still its default), one thread per encoder run (`intra_op_threads = 1` in
`[embedding.providers.onnx]`), and a large call's batches side by side (`threads` of the same table = the
cores). ``--provider sentence-transformers``: torch's default threads for every call (kgrag before: the
count was set once per process) against the count chosen per call (`small_call_threads` of
`[embedding.providers.sentence-transformers]` for up to `small_call_texts` texts, torch's default above)
and against that with `threads = 1` (one
thread for every call), one model shared by the settings.

    .venv/bin/python bench/bench_embed_threads.py [--provider onnx|sentence-transformers] [--queries 60]
        [--load 2] [--batch 128] [--mid 40]

The load is generated here: ``--load`` busy-loop processes (pure Python spinning) started for the loaded
phase and stopped after it. Prints p50/p95 milliseconds of a single query's embedding, the p50 of a
``--mid``-text call (an extractive answer embeds about that many sentences) and the seconds of one
indexing-sized call (``--batch`` passages of the sample corpus), per setting and phase, with the ratios
old/new and loaded/quiet, and checks that the settings give the same vectors. Queries are GraphRAG-Bench
Medical questions when the dataset is present, else sentences of the sample corpus.
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing
import statistics
import time
from pathlib import Path
from typing import Protocol

import numpy as np

from kgrag.models.onnx_embedder import DEFAULT_MINILM, OnnxEmbedder, available_cores, resolve_onnx_files


class Embeds(Protocol):
    def embed(self, texts: list[str]) -> np.ndarray: ...


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


def _ms(embedder: Embeds, texts: list[str]) -> float:
    started = time.perf_counter()
    embedder.embed(texts)
    return 1000 * (time.perf_counter() - started)


def _phase(
    settings: dict[str, Embeds], queries: list[str], mid: list[str], batch: list[str]
) -> dict[str, tuple[float, ...]]:
    """Per setting: p50 and p95 ms of one query, p50 ms of the ``mid``-sized call, and seconds of the batch
    call (settings interleaved per call so that load changes hit both alike)."""
    times: dict[str, list[float]] = {name: [] for name in settings}
    mids: dict[str, list[float]] = {name: [] for name in settings}
    for n, query in enumerate(queries):
        for name, embedder in settings.items():
            times[name].append(_ms(embedder, [query]))
            if n % 6 == 0:
                mids[name].append(_ms(embedder, mid))
    out = {}
    for name, embedder in settings.items():
        seconds = _ms(embedder, batch) / 1000
        ordered = sorted(times[name])
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        out[name] = (statistics.median(ordered), p95, statistics.median(mids[name]), seconds)
    return out


def _onnx_settings() -> dict[str, Embeds]:
    model, tokenizer = resolve_onnx_files(DEFAULT_MINILM)
    cores = available_cores()
    return {
        "old (intra-op default, serial)": OnnxEmbedder(model, tokenizer, threads=1, intra_op_threads=None),
        "one thread per query": OnnxEmbedder(model, tokenizer, intra_op_threads=1),
        f"new, threads={cores} (batches parallel)": OnnxEmbedder(model, tokenizer, threads=cores),
    }


def _torch_settings() -> dict[str, Embeds]:
    """One loaded model, three thread policies: every call on torch's default count (before), the count
    per call size (after, the default: `small_call_threads` = 1 for a query), and one thread for every call
    as well (after, with `threads = 1`: what a busy machine wants for batches too)."""
    from kgrag.models.embeddings import SentenceTransformerEmbedder

    after = SentenceTransformerEmbedder(DEFAULT_MINILM)
    before = copy.copy(after)
    before.small_call_texts = 0  # no call is "small": all run on torch's default count
    single = copy.copy(after)
    single.threads = 1
    return {
        "torch default threads, every call": before,
        f"per call: {after.small_call_threads} for a query": after,
        "per call, threads = 1 for batches": single,
    }


def _drift(settings: dict[str, Embeds], queries: list[str], batch: list[str]) -> float:
    """Largest difference between the first setting's vectors and any other's, one query at a time and in
    one batch (the thread count must not change the result)."""
    first, *others = settings.values()
    reference = [first.embed([q]) for q in queries] + [first.embed(batch)]
    return max(
        float(np.abs(e.embed(texts) - ref).max())
        for e in others
        for texts, ref in zip([[q] for q in queries] + [batch], reference, strict=True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", choices=("onnx", "sentence-transformers"), default="onnx")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--load", type=int, default=2, help="busy-loop processes in the loaded phase")
    parser.add_argument("--batch", type=int, default=128, help="passages in the indexing-sized call")
    parser.add_argument("--mid", type=int, default=40, help="texts in the answer-sized call")
    args = parser.parse_args()
    settings = _onnx_settings() if args.provider == "onnx" else _torch_settings()
    queries, batch = _texts(args.queries, args.batch)
    mid = [s.split(". ")[0] for s in batch][: args.mid]
    print(f"{args.provider}: cores available: {available_cores()}; {len(queries)} queries; answer-sized call of "
          f"{len(mid)} sentences; batch of {len(batch)} passages")  # fmt: skip
    drift = _drift(settings, queries[:8], batch[:64])
    print(f"same vectors (8 queries one by one, a batch of 64): max |old - new| = {drift:.2e}")
    quiet = _phase(settings, queries, mid, batch)
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.load)]
    for process in spinners:
        process.start()
    try:
        loaded = _phase(settings, queries, mid, batch)
    finally:
        for process in spinners:
            process.terminate()
            process.join()
    print(f"{'setting':<36} {'phase':<8} {'query p50':>10} {'p95':>8} {'answer p50':>11} {'batch s':>8}")
    for phase, figures in (("quiet", quiet), (f"load {args.load}", loaded)):
        for name, (p50, p95, mid_p50, seconds) in figures.items():
            print(f"{name:<36} {phase:<8} {p50:8.1f}ms {p95:6.1f}ms {mid_p50:9.1f}ms {seconds:8.2f}")
    old, *new_settings = list(settings)
    for phase, figures in (("quiet", quiet), ("loaded", loaded)):
        for new in new_settings:
            print(
                f"{phase}: old / {new}: query p50 {figures[old][0] / figures[new][0]:.2f}x, "
                f"answer call {figures[old][2] / figures[new][2]:.2f}x, batch {figures[old][3] / figures[new][3]:.2f}x"
            )
    for name in settings:
        print(f"{name}: loaded/quiet query p50 {loaded[name][0] / quiet[name][0]:.2f}x")


if __name__ == "__main__":
    main()
