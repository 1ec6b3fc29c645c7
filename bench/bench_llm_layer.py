"""Overhead of the LLM layer per call, against raw HTTP calls measured in the same process.

The endpoint is the in-package fake server answering instantly, run in a child process so its threads do
not compete with the measured client for the GIL. What is measured is transport plus our own work:
request building, cache key, token counting, budget, limits, retry loop, validation, ledger row and cache
write. Each client path is timed interleaved with a raw httpx POST of the *same* request body (unique
messages per call, so no cache hits unless stated); the overhead is the median of the paired differences.

    .venv/bin/python bench/bench_llm_layer.py [--calls 400]

Nothing here is asserted in tests; numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel

from kgrag.config import LLMConfig, StoreConfig
from kgrag.models.llm import (
    CachedResponse,
    CallRecord,
    ChatRequest,
    LLMClient,
    ScriptedProvider,
    create_llm_client,
)
from kgrag.models.llm.structured import compact_schema, with_instruction
from kgrag.store import open_store
from kgrag.testing import FakeOpenAIServer

PROMPT = """name = "bench"
version = "1"
description = "benchmark prompt"
output_schema = "text"
system = "You answer with JSON."
user = "Give the pair for item $n."
"""
BODY = {"model": "m", "temperature": 0.0, "max_tokens": 256}


class Pair(BaseModel):
    n: int
    label: str


def _reply(request: dict[str, Any]) -> str:
    digits = "".join(ch for ch in str(request["messages"][-1]["content"]) if ch.isdigit()) or "0"
    return json.dumps({"n": int(digits[:9]), "label": "x" * 20})


def _timed(fn: Callable[[int], object], i: int) -> float:
    started = time.perf_counter()
    fn(i)
    return (time.perf_counter() - started) * 1e6


def _paired(raw: Callable[[int], object], ours: Callable[[int], object], calls: int) -> tuple[float, float, float]:
    """Median µs of the raw call, of our call, and of the per-pair difference (interleaved)."""
    for i in range(20):  # warm-up: connections, tokenizer, prompt files
        raw(10_000_000 + i)
        ours(20_000_000 + i)
    raw_us, our_us = [], []
    for i in range(calls):
        raw_us.append(_timed(raw, 30_000_000 + i))
        our_us.append(_timed(ours, 40_000_000 + i))
    diffs = [b - a for a, b in zip(raw_us, our_us, strict=True)]
    return statistics.median(raw_us), statistics.median(our_us), statistics.median(diffs)


def _single(fn: Callable[[int], object], calls: int) -> float:
    for i in range(20):
        fn(50_000_000 + i)
    return statistics.median(_timed(fn, 60_000_000 + i) for i in range(calls))


def _structured_messages(client: LLMClient, i: int) -> list[Any]:
    """The exact messages ``client.structured("bench", ...)`` sends, for a like-for-like raw call."""
    wrapper = client.prompt("structured_output")
    instruction = wrapper.render_part("system", {"schema": compact_schema(Pair.model_json_schema())})
    return with_instruction(client.prompt("bench").render({"n": i}), instruction)


def _client_rows(base: str, workdir: Path, calls: int) -> list[tuple[str, float, float, float]]:
    raw = httpx.Client(base_url=base + "/", timeout=30)

    def raw_chat(i: int) -> object:
        return raw.post(
            "chat/completions", json={**BODY, "messages": [{"role": "user", "content": f"item {i}"}]}
        ).json()

    own = {"openai": {"base_url": base}}
    cfg = LLMConfig(provider="openai", providers=own, model="m", max_output_tokens=256, prompts_dir=workdir)
    bare = create_llm_client(cfg.model_copy(update={"cache_enabled": False}))
    full = create_llm_client(cfg, open_store(StoreConfig(url="bench.sqlite3"), workdir))

    template = _structured_messages(full, 0)  # rendered once, so the raw side times only the transport

    def raw_structured(i: int) -> object:
        user = {"role": "user", "content": template[-1]["content"].replace("item 0.", f"item {i}.")}
        return raw.post("chat/completions", json={**BODY, "messages": [*template[:-1], user]}).json()

    return [
        ("client.chat, no cache, memory ledger", *_paired(
            raw_chat, lambda i: bare.chat([{"role": "user", "content": f"item {i}"}], stage="bench"), calls)),
        ("client.chat, SQLite cache miss + ledger", *_paired(
            raw_chat, lambda i: full.chat([{"role": "user", "content": f"item {i}"}], stage="bench"), calls)),
        ("client.structured, SQLite, validated", *_paired(
            raw_structured, lambda i: full.structured("bench", {"n": i}, Pair, stage="bench"), calls)),
    ]  # fmt: skip


def _local_rows(workdir: Path, calls: int) -> list[tuple[str, float]]:
    store = open_store(StoreConfig(url="local.sqlite3"), workdir)
    cfg = LLMConfig(provider="scripted")
    cached = create_llm_client(cfg, store, provider=ScriptedProvider(default="ok"))
    key = cached.chat([{"role": "user", "content": "cached"}], stage="bench").cache_key
    cache = store.llm_cache
    ledger = store.llm_ledger
    request = ChatRequest(({"role": "user", "content": "x"},), "m")
    stored = CachedResponse("reply", "stop", 10, 5)
    record = CallRecord("run", "bench", "openai", "m", 10, 5, "api", 1.0, False, 1)
    instant = create_llm_client(
        cfg.model_copy(update={"cache_enabled": False}), provider=ScriptedProvider(default="ok")
    )
    return [
        ("client.chat, SQLite cache hit (end to end)",
         _single(lambda i: cached.chat([{"role": "user", "content": "cached"}], stage="bench"), calls)),
        ("store.llm_cache.get (SQLite), hit", _single(lambda i: cache.get(key), calls)),
        ("store.llm_cache.get (SQLite), miss", _single(lambda i: cache.get(f"{i:064d}"), calls)),
        ("store.llm_cache.put (SQLite)", _single(lambda i: cache.put(f"p{i}", request, stored), calls)),
        ("store.llm_ledger.record (SQLite)", _single(lambda i: ledger.record(record), calls)),
        ("client.chat, instant in-process provider",
         _single(lambda i: instant.chat([{"role": "user", "content": f"item {i}"}], stage="bench"), calls)),
    ]  # fmt: skip


def _serve() -> None:
    with FakeOpenAIServer(_reply) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


def _report(http_rows: list[tuple[str, float, float, float]], local_rows: list[tuple[str, float]]) -> None:
    print(f"{'over HTTP (paired with a raw httpx POST of the same body)':58} {'raw µs':>8} {'ours µs':>8} "
          f"{'ratio':>6} {'overhead µs':>12}")  # fmt: skip
    for name, raw_us, our_us, diff in http_rows:
        print(f"{name:58} {raw_us:8.1f} {our_us:8.1f} {our_us / raw_us:6.2f} {diff:12.1f}")
    print()
    print(f"{'in process (no transport)':58} {'µs':>8}")
    for name, us in local_rows:
        print(f"{name:58} {us:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _serve()
        return
    child = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)  # fmt: skip
    try:
        assert child.stdout is not None
        base_url = child.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp)
            (workdir / "bench.toml").write_text(PROMPT)
            http_rows = _client_rows(base_url, workdir, args.calls)
            local_rows = _local_rows(workdir, args.calls)
    finally:
        child.terminate()
        child.wait()
    _report(http_rows, local_rows)


if __name__ == "__main__":
    main()
