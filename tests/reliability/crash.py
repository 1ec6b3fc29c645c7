"""Kill ``kgrag index`` with SIGKILL at seeded points, resume, and compare with an uninterrupted run.

Used by the CI crash test (a few kills) and by ``make soak`` (many). The LLM is the fake OpenAI server
in this process, answering through the scripted extraction responder, so the kill points can be counted
in LLM requests (the work that costs money) as well as in seconds (for the LLM-free stages).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.reliability.harness import DB_NAME, differences, dump_tables, health_problems, llm_workspace
from tests.services import scaled

from kgrag.config import LLMConfig
from kgrag.store.index_lock import WAITING
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder

REPO = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_S = scaled(300.0)  # generous, and more on a loaded machine
GATE_S = 60.0  # how long two_indexers holds the first indexer's replies back at most
WAITING_START = " ".join(WAITING.split()[:6])  # the note may be wrapped over lines


@dataclass
class CrashReport:
    """What a crash series found; ``problems`` is empty when every kill was survived."""

    kills: int = 0
    clean_requests: int = 0
    resumed_requests: int = 0
    max_in_flight: int = 0
    problems: list[str] = field(default_factory=list)


def _env() -> dict[str, str]:
    source = str(REPO / "src")
    path = os.pathsep.join(p for p in (source, str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "KGRAG_TEST_KEY": "sk-test", "HF_HUB_OFFLINE": "1"}


def _command(workspace: Path, docs: Path) -> list[str]:
    return [sys.executable, "-m", "kgrag.cli", "index", str(docs), "-w", str(workspace)]


def run_to_end(workspace: Path, docs: Path) -> None:
    done = subprocess.run(_command(workspace, docs), env=_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    if done.returncode != 0:
        raise AssertionError(f"kgrag index failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}")


def kill_when(workspace: Path, docs: Path, ready: Callable[[], bool]) -> bool:
    """Start ``kgrag index`` and SIGKILL it as soon as ``ready()``; False when it finished first."""
    process = subprocess.Popen(
        _command(workspace, docs), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while process.poll() is None and time.monotonic() < deadline:
            if ready():
                process.send_signal(signal.SIGKILL)
                process.wait()
                return True
            time.sleep(0.002)
        return False
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def crash_series(root: Path, docs: Path, kills: int, seed: int, *, llm: bool = True) -> CrashReport:
    """An uninterrupted run, then a run killed ``kills`` times at seeded points and resumed: the two
    databases must hold the same rows, and the killed run may pay only for requests lost in flight (each kill
    at most the requests the client had open: ``llm.max_concurrency``, or more where the server saw more)."""
    report = CrashReport()
    rng = random.Random(seed)
    with FakeOpenAIServer(ExtractionResponder().for_server) as server:
        settings: dict[str, Any] = {} if llm else {"graph.extractor": '"none"'}
        clean = llm_workspace(root / "clean", server.base_url, **settings)
        started = time.monotonic()
        run_to_end(clean, docs)
        clean_seconds = time.monotonic() - started
        report.clean_requests = server.stats.chat_requests
        server.reset_stats()
        crashed = llm_workspace(root / "crashed", server.base_url, **settings)
        for _ in range(kills):
            if llm and report.clean_requests > 1:
                target = server.stats.chat_requests + rng.randint(1, max(1, report.clean_requests // kills))
                ready: Callable[[], bool] = lambda t=target: server.stats.chat_requests >= t  # noqa: E731
            else:
                moment = time.monotonic() + rng.uniform(0.3, max(0.4, clean_seconds))
                ready = lambda m=moment: time.monotonic() >= m  # noqa: E731
            report.kills += kill_when(crashed, docs, ready)
        run_to_end(crashed, docs)
        report.resumed_requests = server.stats.chat_requests
        report.max_in_flight = server.stats.max_in_flight
    report.problems += health_problems(crashed / DB_NAME)
    report.problems += differences(dump_tables(clean / DB_NAME), dump_tables(crashed / DB_NAME))
    # a request is lost to a kill from the moment the server counts it until the client has stored its reply:
    # the server sees only the first part of that (its own handling), the client holds up to its concurrency open
    lost_in_flight = report.kills * max(1, report.max_in_flight, LLMConfig().max_concurrency)
    if not report.clean_requests <= report.resumed_requests <= report.clean_requests + lost_in_flight:
        report.problems.append(
            f"LLM requests: {report.resumed_requests} with kills vs {report.clean_requests} clean "
            f"(at most {lost_in_flight} may be lost in flight)"
        )
    shutil.rmtree(root / "clean", ignore_errors=True)
    shutil.rmtree(root / "crashed", ignore_errors=True)
    return report


@dataclass
class TwoIndexers:
    """LLM requests of one ``kgrag index`` alone (``single``) and of two at once (``both``); ``waited``:
    the second said it was waiting for the first (so the two really overlapped)."""

    single: int
    both: int
    waited: bool


def _watch_output(process: subprocess.Popen[str], seen: threading.Event, found: list[str]) -> None:
    """Collect ``process``'s output; set ``seen`` once it holds the lock's waiting note."""
    assert process.stdout is not None
    for line in process.stdout:
        found.append(line)
        if WAITING_START in " ".join("".join(found).split()):
            seen.set()


def two_indexers(root: Path, docs: Path, store_url: Callable[[Path], str] | None = None) -> TwoIndexers:
    """LLM requests of one ``kgrag index``, and of two started at once: on one workspace directory, or,
    with ``store_url`` (directory → PostgreSQL URL), on two directories sharing one schema.

    The first indexer's LLM replies are held back until the second has printed that it waits, so the
    second really starts while the first is mid-way through extraction (held at most ``GATE_S``, well
    under the client's timeout, so nothing is re-sent)."""
    gate = threading.Event()
    responder = ExtractionResponder().for_server

    def gated(body: dict[str, Any]) -> str:
        gate.wait(GATE_S)
        return responder(body)

    def workspace(name: str, schema_of: str, base_url: str) -> Path:
        store = (
            {}
            if store_url is None
            else {"store.backend": '"postgresql"', "store.url": f'"{store_url(root / schema_of)}"'}
        )
        return llm_workspace(root / name, base_url, **store, **{"llm.timeout_s": str(int(GATE_S * 2))})

    with FakeOpenAIServer(gated) as server:
        gate.set()
        run_to_end(workspace("single", "single", server.base_url), docs)
        single = server.stats.chat_requests
        server.reset_stats()
        gate.clear()
        first = workspace("shared", "shared", server.base_url)
        second = first if store_url is None else workspace("other", "shared", server.base_url)
        waited = _overlapping_runs(first, second, docs, server, gate)
        both = server.stats.chat_requests
    for name in ("single", "shared", "other"):
        shutil.rmtree(root / name, ignore_errors=True)
    return TwoIndexers(single, both, waited)


def _overlapping_runs(
    first_ws: Path, second_ws: Path, docs: Path, server: FakeOpenAIServer, gate: threading.Event
) -> bool:
    """Start indexing ``first_ws``; once it sent a request, ``second_ws``; open ``gate`` when the second
    waits (or after ``GATE_S``). Returns whether the second waited."""
    first = subprocess.Popen(_command(first_ws, docs), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while server.stats.chat_requests == 0 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    second = subprocess.Popen(
        _command(second_ws, docs), env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output: list[str] = []
    watcher = threading.Thread(target=_watch_output, args=(second, gate, output), daemon=True)
    watcher.start()
    waited = gate.wait(GATE_S)
    gate.set()
    second.wait(timeout=RUN_TIMEOUT_S)
    watcher.join(timeout=RUN_TIMEOUT_S)
    _, errors = first.communicate(timeout=RUN_TIMEOUT_S)
    if first.returncode or second.returncode:
        raise AssertionError(
            f"an indexer failed: {first.returncode}, {second.returncode}: "
            f"{errors.decode(errors='replace')[-2000:]}{''.join(output)[-2000:]}"
        )
    return waited


@dataclass
class DenoiseDuringIndex:
    """``kgrag graph denoise`` started while ``kgrag index`` was mid-way: whether it said it waited, both
    exit statuses, and what :func:`health_problems` found in the database afterwards."""

    waited: bool
    index_status: int
    denoise_status: int
    denoise_output: str
    problems: list[str]


def denoise_during_index(root: Path, docs: Path) -> DenoiseDuringIndex:
    """Index half of ``docs``; then index all of them and, once that run sent its first LLM request (its
    replies held back), start ``kgrag graph denoise`` on the same workspace. The held replies are released
    when denoise says it waits for the indexer (or after ``GATE_S``: then it did not wait)."""
    gate = threading.Event()
    responder = ExtractionResponder().for_server

    def gated(body: dict[str, Any]) -> str:
        gate.wait(GATE_S)
        return responder(body)

    half = root / "half-docs"
    half.mkdir(parents=True, exist_ok=True)
    for path in sorted(docs.iterdir())[: max(1, len(list(docs.iterdir())) // 2)]:
        shutil.copy(path, half / path.name)
    with FakeOpenAIServer(gated) as server:
        settings = {"llm.timeout_s": str(int(GATE_S * 2)), "denoise.reflection": '"provenance"'}
        workspace = llm_workspace(root / "denoised", server.base_url, **settings)
        gate.set()
        run_to_end(workspace, half)
        gate.clear()
        requests_before = server.stats.chat_requests
        index = subprocess.Popen(
            _command(workspace, docs), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while server.stats.chat_requests == requests_before and index.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        denoise = subprocess.Popen(
            [sys.executable, "-m", "kgrag.cli", "graph", "denoise", "-w", str(workspace)],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        output: list[str] = []
        watcher = threading.Thread(target=_watch_output, args=(denoise, gate, output), daemon=True)
        watcher.start()
        waited = gate.wait(GATE_S)
        gate.set()
        denoise.wait(timeout=RUN_TIMEOUT_S)
        watcher.join(timeout=RUN_TIMEOUT_S)
        index.communicate(timeout=RUN_TIMEOUT_S)
    problems = health_problems(workspace / DB_NAME)
    return DenoiseDuringIndex(waited, index.returncode, denoise.returncode, "".join(output), problems)
