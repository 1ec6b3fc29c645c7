"""``kgrag index --batch`` vs live calls: requests, rounds, money, wall time, and whether the graphs agree.

Indexes the sample corpus and a slice of the GraphRAG-Bench Medical corpus (``../shared/datasets/
graphrag-bench-medical/corpus.json``; skipped when absent) with the ``graphrag`` pipeline twice against
``kgrag.testing.FakeBatchServer`` answering with the scripted extraction responder: once live, once through
the Batch API (batches finish on their second poll, polls 10 ms apart). Prices are gpt-4o-mini's list
prices; the batch share is OpenAI's 50 %.

    PYTHONPATH=src .venv/bin/python bench/bench_batch_indexing.py [--tokens 25000]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from kgrag import Workspace
from kgrag.testing import BatchPlan, FakeBatchServer
from kgrag.testing.estimate_check import medical_slice
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.workspace_toml import write_workspace_toml

ROOT = Path(__file__).resolve().parents[1]
MEDICAL = ROOT.parent / "shared" / "datasets" / "graphrag-bench-medical" / "corpus.json"
SAMPLE = ROOT / "examples" / "sample" / "docs"
PRICES = {"llm.price_prompt_per_1m": "0.15", "llm.price_completion_per_1m": "0.60"}


def _workspace(path: Path, base_url: str, batch: bool) -> Path:
    Workspace.init(path, embedding={"provider": "fake"}).close()
    lines = {
        "embedding.provider": '"fake"',
        "graph.extractor": '"llm"',
        "indexing.pipeline": '"graphrag"',
        "llm.provider": '"openai"',
        "llm.providers.openai.base_url": f'"{base_url}"',
        "llm.model": '"gpt-4o-mini"',
        "llm.batch": "true" if batch else "false",
        "llm.batch_poll_s": "0.01",
        **PRICES,
    }
    return write_workspace_toml(path, lines)


def _graph(ws: Workspace) -> tuple[Any, ...]:
    store = ws.store
    return (
        sorted((e.key, e.description, *sorted(e.chunk_ids)) for e in store.graph.entities()),
        sorted((r.id, r.description) for r in store.graph.relations()),
        sorted((r.community_id, r.summary) for r in store.communities.reports()),
    )


def _run(path: Path, docs: Path) -> tuple[float, float, int, tuple[Any, ...]]:
    started = time.perf_counter()
    with Workspace.open(path) as ws:
        ws.index([docs])
        seconds = time.perf_counter() - started
        usage = ws.llm_usage()
        return seconds, usage.total.cost_usd, usage.total.batch_calls, _graph(ws)


def compare(name: str, docs: Path, scratch: Path) -> None:
    with FakeBatchServer(ExtractionResponder().for_server, plan=BatchPlan(polls_to_complete=2)) as server:
        live_s, live_usd, _, live_graph = _run(_workspace(scratch / "live", server.base_url, False), docs)
        requests = server.stats.chat_requests
        server.reset_stats()
        batch_s, batch_usd, batched, batch_graph = _run(_workspace(scratch / "batch", server.base_url, True), docs)
        stats = server.batch_stats
        print(f"\n== {name}")
        print(f"live:  {requests} requests, ${live_usd:.4f}, {live_s:.1f} s")
        print(
            f"batch: {stats.creates} batches (rounds), {stats.lines} lines, {batched} answered at batch price, "
            f"{server.stats.chat_requests} live, ${batch_usd:.4f} ({batch_usd / live_usd:.0%} of live), "
            f"{batch_s:.1f} s ({stats.polls} polls)"
        )
        entities, relations, reports = (len(part) for part in batch_graph)
        print(f"graph: {entities} entities, {relations} relations, {reports} reports; equal to live: "
              f"{batch_graph == live_graph}")  # fmt: skip
    shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=25_000, help="size of the Medical slice (cl100k tokens)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kgrag-bench-batch-") as tmp:
        root = Path(tmp)
        compare("sample corpus", SAMPLE, root / "sample")
        if MEDICAL.exists():
            slice_dir = root / "medical-docs"
            slice_dir.mkdir()
            medical_slice(MEDICAL, slice_dir, args.tokens)
            compare(f"GraphRAG-Bench Medical, first {args.tokens} tokens", slice_dir, root / "medical")


if __name__ == "__main__":
    main()
