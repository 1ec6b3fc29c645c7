"""Server benchmark: throughput and latency of `dense` and `graph-local` queries over HTTP with 16
concurrent clients while an indexing job writes to the same workspace, and the server's overhead per
request against calling the Python API in-process.

    .venv/bin/python bench/bench_server.py [--requests 400] [--clients 16]

The server runs in its own process (so client threads do not share its GIL) on a free 127.0.0.1 port,
over the sample corpus with the hashing embedder and a fast capitalised-word graph extractor (so the
numbers measure the server and retrieval, not a model). Prints rps, p50/p95 and errors per pipeline,
whether the job was running during the whole measurement, and the overhead as p50(HTTP) - p50(in-process)
with the ratio to the in-process p50 measured in the same run.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx

from kgrag import Workspace
from kgrag.core.records import ChunkRecord
from kgrag.evaluation.retrieval_eval import percentile
from kgrag.graph.types import ChunkExtraction, ExtractedEntity, ExtractedRelation

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "sample" / "docs"
TOML = '[embedding]\nprovider = "fake"\n\n[graph]\nextractor = "nlp"\n\n[server]\nrate_limit_per_minute = 0\n'
QUESTIONS = (
    "Who leads the Platform team?",
    "What is Shale?",
    "How does the on-call rotation work?",
    "What happened in INC-2024-031?",
    "Which customers use Kestrel?",
    "Who approves production access?",
)
_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")


class WordExtractor:
    """Capitalised words → entities, neighbours in a sentence → relations; ``delay_s`` per chunk keeps an
    indexing job busy for the length of the measurement."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.name = "bench-words:v1"
        self.delay_s = delay_s

    def extract(self, chunks: Sequence[ChunkRecord]) -> Iterator[ChunkExtraction]:
        for chunk in chunks:
            time.sleep(self.delay_s)
            entities: dict[str, ExtractedEntity] = {}
            relations = []
            for sentence in re.split(r"[.!?\n]", chunk.text):
                names = list(dict.fromkeys(_NAME.findall(sentence)))
                for name in names:
                    entities.setdefault(name, ExtractedEntity(name, "concept", sentence.strip()))
                relations += [
                    ExtractedRelation(a, b, "next_to", sentence.strip(), (), 1.0) for a, b in itertools.pairwise(names)
                ]
            yield ChunkExtraction(chunk_id=chunk.id, entities=list(entities.values()), relations=relations)


def open_bench_ws(path: Path, delay_s: float) -> Workspace:
    ws = Workspace.open(path)
    ws.indexing.registries.extractors.register("nlp", lambda *_: WordExtractor(delay_s), replace=True)
    return ws


def prepare(path: Path, extra_docs: int) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "kgrag.toml").write_text(TOML, encoding="utf-8")
    with open_bench_ws(path, 0.0) as ws:
        ws.index([SAMPLE])
    uploads = path / "uploads"
    uploads.mkdir(exist_ok=True)
    for i in range(extra_docs):  # what the indexing job will write during the measurement
        text = " ".join(f"Item{i} relates to Widget{(i * 7 + j) % 97} and Gadget{j}." for j in range(40))
        (uploads / f"extra-{i}.md").write_text(f"# Extra {i}\n\n{text}\n", encoding="utf-8")


def serve(path: Path, port: int) -> None:
    """The server process: the benchmark workspace with a slow extractor, so indexing jobs last."""
    import uvicorn

    from kgrag.server import create_app

    ws = open_bench_ws(path, 0.02)
    uvicorn.run(create_app({"bench": ws}, ws.config.server), host="127.0.0.1", port=port, log_level="warning")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def load(url: str, pipeline: str, total: int, clients: int) -> tuple[float, list[float], int]:
    """``total`` queries from ``clients`` threads, each with its own keep-alive connection."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    counter = itertools.count()

    def client() -> None:
        nonlocal errors
        with httpx.Client(base_url=url, timeout=120) as http:
            while (i := next(counter)) < total:
                body = {"question": QUESTIONS[i % len(QUESTIONS)], "pipeline": pipeline}
                started = time.perf_counter()
                response = http.post("/v1/workspaces/bench/query", json=body)
                ms = (time.perf_counter() - started) * 1000
                with lock:
                    latencies.append(ms)
                    errors += response.status_code != 200

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return total / (time.perf_counter() - started), latencies, errors


def overhead(url: str, path: Path, pipeline: str, rounds: int) -> None:
    """p50 of one client over HTTP (TCP to the server process), over ASGI in this process (FastAPI and
    kgrag's server code without sockets and scheduling), and of the Python API in-process, interleaved
    call by call so load from other processes hits all three alike."""
    from fastapi.testclient import TestClient

    from kgrag.server import create_app

    samples: dict[str, list[float]] = {"http": [], "asgi": [], "python": []}
    with (
        httpx.Client(base_url=url, timeout=120) as http,
        open_bench_ws(path, 0.0) as ws,
        TestClient(base_url="http://127.0.0.1", app=create_app({"bench": ws}, ws.config.server)) as asgi,
    ):
        calls = {
            "http": lambda q: http.post("/v1/workspaces/bench/query", json={"question": q, "pipeline": pipeline}),
            "asgi": lambda q: asgi.post("/v1/workspaces/bench/query", json={"question": q, "pipeline": pipeline}),
            "python": lambda q: ws.query(q, pipeline=pipeline),
        }
        for i in range(rounds + 10):
            for name, call in calls.items():
                started = time.perf_counter()
                call(QUESTIONS[i % len(QUESTIONS)])
                if i >= 10:  # the first calls load the hot indexes on every side
                    samples[name].append((time.perf_counter() - started) * 1000)
    p50 = {name: percentile(values, 50) for name, values in samples.items()}
    print(
        f"overhead {pipeline}: in-process p50 {p50['python']:.2f} ms; ASGI p50 {p50['asgi']:.2f} ms "
        f"(+{p50['asgi'] - p50['python']:.2f} ms, ratio {p50['asgi'] / p50['python']:.2f}); HTTP over TCP p50 "
        f"{p50['http']:.2f} ms (+{p50['http'] - p50['python']:.2f} ms, ratio {p50['http'] / p50['python']:.2f}); "
        "target ≤ 2 ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ws"
        prepare(path, extra_docs=300)
        port = free_port()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        cmd = [sys.executable, __file__, "--serve", str(path), "--port", str(port)]
        server = subprocess.Popen(cmd, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            run(url, path, args)
        finally:
            server.terminate()
            server.wait(30)


def run(url: str, path: Path, args: argparse.Namespace) -> None:
    for _ in range(300):
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    overhead(url, path, "dense", 300)
    overhead(url, path, "graph-local", 300)
    job = httpx.post(f"{url}/v1/workspaces/bench/jobs", json={}, timeout=30).json()
    for pipeline in ("dense", "graph-local"):
        load(url, pipeline, args.clients * 2, args.clients)  # warm-up
        rps, latencies, errors = load(url, pipeline, args.requests, args.clients)
        state = httpx.get(f"{url}/v1/workspaces/bench/jobs/{job['id']}", timeout=30).json()
        print(
            f"{pipeline}: {rps:.1f} rps, p50 {percentile(latencies, 50):.1f} ms, "
            f"p95 {percentile(latencies, 95):.1f} ms, "
            f"{errors} errors, {args.clients} clients, indexing job {state['state']} at the end"
        )
    httpx.post(f"{url}/v1/workspaces/bench/jobs/{job['id']}/cancel", headers={"X-Kgrag-Request": "1"}, timeout=30)


if __name__ == "__main__":
    main()
