"""SQLite vs PostgreSQL store backends on the sample corpus, measured in the same run.

Prints, per backend: index time of the sample corpus (fake hashing embedder and the word extractor, so
the store dominates), query p50/p95 for ``dense`` and ``bm25`` (a warm workspace, the query vectors
cached), and the ratio of each figure to SQLite's. PostgreSQL runs on a throwaway local cluster
(``kgrag.testing.pg_server``: fsync off), so the numbers show the backend's own cost plus a loopback
round trip, not a networked production server.

    .venv/bin/python bench/bench_store_backends.py [--rounds 40]

Skips (exit 0 with a message) when no PostgreSQL server can be started.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests.helpers: the WordExtractor indexing used across the suite

from tests.helpers import index_with_word_extractor  # noqa: E402

from kgrag import Workspace  # noqa: E402
from kgrag.evaluation.retrieval_eval import percentile  # noqa: E402
from kgrag.testing.pg_server import PgServer, PgServerUnavailable  # noqa: E402

SAMPLE = REPO / "examples" / "sample"
SETTINGS = {"embedding": {"provider": "fake"}, "llm": {"provider": "none"}}
PIPELINES = ("dense", "bm25")


def measure(ws: Workspace, questions: list[str], rounds: int) -> dict[str, float]:
    started = time.perf_counter()
    index_with_word_extractor(ws, [SAMPLE / "docs"])
    figures = {"index_s": time.perf_counter() - started}
    for pipeline in PIPELINES:
        for question in questions:  # warm: hot indexes loaded, query vectors cached
            ws.retrieve(question, pipeline=pipeline)
        times = []
        for _ in range(rounds):
            for question in questions:
                t = time.perf_counter()
                ws.retrieve(question, pipeline=pipeline)
                times.append((time.perf_counter() - t) * 1000)
        figures[f"{pipeline}_p50_ms"] = statistics.median(times)
        figures[f"{pipeline}_p95_ms"] = percentile(times, 95)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    import json

    questions = [q["question"] for q in json.loads((SAMPLE / "questions.json").read_text())][:10]
    try:
        server = PgServer.start()
    except PgServerUnavailable as exc:
        print(f"skipped: no PostgreSQL server can be started here ({exc})")
        return
    results: dict[str, dict[str, float]] = {}
    with server, tempfile.TemporaryDirectory() as tmp:
        stores = {"sqlite": {}, "postgresql": {"backend": "postgresql", "url": f"{server.url}?schema=bench"}}
        for name, store in stores.items():
            ws = Workspace.init(Path(tmp) / name, store=store, **SETTINGS)
            try:
                results[name] = measure(ws, questions, args.rounds)
            finally:
                ws.close()
    base = results["sqlite"]
    print(f"{'figure':<14}" + "".join(f"{n:>14}" for n in results) + f"{'pg / sqlite':>14}")
    for key in base:
        row = "".join(f"{results[n][key]:>14.3f}" for n in results)
        print(f"{key:<14}{row}{results['postgresql'][key] / base[key]:>13.2f}x")


if __name__ == "__main__":
    main()
