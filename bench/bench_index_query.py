"""Indexing and query benchmark on the GraphRAG-Bench Medical corpus.

Prints: index time split into load/chunk/embed/store, chunks/s, the pipeline's embedding throughput
against the raw model's throughput measured in the same process on a sample of the same chunks, query
p50/p95 per pipeline with the query-embedding model time reported separately, and peak RSS.

    .venv/bin/python bench/bench_index_query.py [--questions 300] [--workspace DIR]

Skips (exit 0 with a message) when ../shared/datasets is absent.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from kgrag import Workspace
from kgrag.core.stages import EMBED, timing_key
from kgrag.evaluation.retrieval_eval import percentile

REPO = Path(__file__).resolve().parents[1]
MEDICAL = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical"
PIPELINES = ("dense", "bm25", "hybrid")


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_index(ws: Workspace) -> None:
    started = time.perf_counter()
    report = ws.index([MEDICAL / "corpus.json"])
    total = time.perf_counter() - started
    split = ", ".join(f"{k} {v:.2f}s" for k, v in report.seconds.items())
    n_chunks = ws.store.chunks.count()
    print(f"index: {total:.1f}s total ({split}); {n_chunks} chunks; {n_chunks / total:.1f} chunks/s overall")
    embed_s = report.seconds.get(timing_key(EMBED, "model"), 0.0)  # the model's time, not the stage's
    if report.texts_embedded and embed_s:
        pipeline_rate = report.texts_embedded / embed_s
        raw_rate = _raw_model_rate(ws)
        print(
            f"embedding: pipeline {pipeline_rate:.1f} texts/s vs raw model {raw_rate:.1f} texts/s "
            f"→ ratio {pipeline_rate / raw_rate:.2f} (target ≥ 0.80)"
        )


def _raw_model_rate(ws: Workspace, sample: int = 256) -> float:
    """The bare model's encode() on a random sample of the same chunk texts, same batch size."""
    texts = [c.text for c in ws.store.chunks.iter_all()]
    random.Random(0).shuffle(texts)
    embedder = ws.components.embedder()
    started = time.perf_counter()
    embedder.embed(texts[:sample])
    return min(sample, len(texts)) / (time.perf_counter() - started)


def bench_queries(ws: Workspace, n_questions: int) -> None:
    questions = [q["question"] for q in json.loads((MEDICAL / "questions.json").read_text())[:n_questions]]
    started = time.perf_counter()
    for q in questions:  # the model part of a dense query, measured on its own
        ws.components.query_context.embed_query(q)
    embed_ms = (time.perf_counter() - started) * 1000 / len(questions)
    print(f"query embedding (model): {embed_ms:.1f} ms/question, reported separately below")
    ws.retrieve(questions[0], "hybrid", 5)  # load the hot matrix once
    for pipeline in PIPELINES:
        latencies = []
        for q in questions:
            t0 = time.perf_counter()
            ws.retrieve(q, pipeline, 5)
            latencies.append((time.perf_counter() - t0) * 1000)
        print(
            f"query {pipeline:<7} p50 {statistics.median(latencies):6.2f} ms  "
            f"p95 {percentile(latencies, 95):6.2f} ms  (n={len(latencies)}, target p95 ≤ 20 ms)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--workspace", type=Path, default=None, help="Keep the workspace here.")
    args = parser.parse_args()
    if not MEDICAL.exists():
        print(f"skipped: {MEDICAL} not found")
        return 0
    path = args.workspace or Path(tempfile.mkdtemp(prefix="kgrag-bench-"))
    try:
        with Workspace.init(
            path,
            documents={"loaders": {".json": {"text_field": "context", "id_field": "corpus_name"}}},
            graph={"extractor": "none"},
        ) as ws:
            bench_index(ws)
            bench_queries(ws, args.questions)
            print(f"database: {ws.store.size_bytes() / 1e6:.1f} MB; peak RSS {_peak_rss_mb():.0f} MB")
    finally:
        if args.workspace is None:
            shutil.rmtree(path, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
