"""The two child processes of ``bench_scale.py``: ``kgrag index`` under an RSS monitor, and a query run.

Each measurement runs in its own process so that peak memory and cold-start costs belong to one size
only. Indexing goes through the real CLI (``python -m kgrag.cli index``) so ``--engine`` and the store
settings reach kgrag exactly as a user would pass them; the query child uses the Python API in a fresh
process and prints one JSON line.
"""

from __future__ import annotations

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

POLL_S = 0.1


@dataclass
class IndexRun:
    """What one ``kgrag index`` child did: exit code, wall time, peak RSS of its process tree, stages."""

    rc: int
    wall_s: float
    peak_rss_mb: float
    seconds: dict[str, float] = field(default_factory=dict)
    error: str = ""
    cpu_s: float = 0.0  # user + system CPU of the child and every worker it reaped: robust to a busy machine


def kgrag_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "kgrag.cli", *args]


def tree_rss(proc: psutil.Process) -> int:
    """RSS of a process and all its descendants (Ray or spaCy workers count), 0 once it is gone."""
    total = 0
    try:
        for p in (proc, *proc.children(recursive=True)):
            try:
                total += p.memory_info().rss
            except psutil.Error:
                continue
    except psutil.Error:
        return 0
    return total


def parse_seconds(stdout: str) -> dict[str, float]:
    """The ``time: stage 1.23s, stage.part 0.45s`` line ``kgrag index`` prints."""
    line = next((ln for ln in stdout.splitlines() if ln.startswith("time: ")), "")
    return {m[0]: float(m[1]) for m in re.findall(r"([\w.-]+) ([\d.]+)s", line[len("time: ") :])}


def run_index(workspace: Path, corpus: Path, engine: str, env: dict[str, str]) -> IndexRun:
    """``kgrag index`` of ``corpus`` into ``workspace``, polling the tree's RSS every ``POLL_S`` seconds
    (a spike shorter than that can be missed; ru_maxrss cannot see grandchildren such as Ray workers)."""
    cmd = kgrag_cmd("index", str(corpus), "-w", str(workspace))
    if engine != "local":  # the local engine is the default: no flag, so this runs before --engine exists
        cmd += ["--engine", engine]
    started, cpu_before = time.perf_counter(), _children_cpu()
    with open(workspace.parent / f"{workspace.name}.index.log", "w+", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, text=True)
        watched, peak = psutil.Process(proc.pid), 0
        while proc.poll() is None:
            peak = max(peak, tree_rss(watched))
            time.sleep(POLL_S)
        wall = time.perf_counter() - started
        log.seek(0)
        output = log.read()
    lines = [ln for ln in output.splitlines() if ln.strip()]
    error = "" if proc.returncode == 0 else (lines[-1] if lines else f"exit {proc.returncode}")
    cpu = _children_cpu() - cpu_before
    return IndexRun(proc.returncode, wall, peak / 2**20, parse_seconds(output), error, cpu)


def _children_cpu() -> float:
    """CPU seconds of every reaped descendant so far (a grandchild counts once its parent waited for it)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_queries(workspace: Path, questions: int, pipelines: str, env: dict[str, str]) -> dict[str, object]:
    """The query child (this module's ``main``) for ``workspace``; its JSON, or ``{"error": ...}``."""
    cmd = [sys.executable, __file__, str(workspace), str(questions), pipelines]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()
        return {"error": tail[-1] if tail else f"exit {done.returncode}"}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def query_child(workspace: Path, n_questions: int, pipelines: list[str]) -> dict[str, object]:
    """Open the workspace cold, time the first query of each pipeline (loads its hot index) apart, then
    p50/p95 over ``n_questions`` Medical questions (perturbed copies answer the same questions)."""
    from kgrag import Workspace

    medical = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "graphrag-bench-medical"
    rows = json.loads((medical / "questions.json").read_text(encoding="utf-8"))[:n_questions]
    questions = [r["question"] for r in rows]
    out: dict[str, object] = {}
    with Workspace.open(workspace) as ws:
        out["index_bytes"] = ws.store.size_bytes()
        for q in questions:  # the query embedding is model time; warm its cache like a repeated query
            ws.components.query_context.embed_query(q)
        for name in pipelines:
            started = time.perf_counter()
            ws.retrieve(questions[0], name, 5)
            first = (time.perf_counter() - started) * 1000
            latencies = []
            for q in questions:
                t0 = time.perf_counter()
                ws.retrieve(q, name, 5)
                latencies.append((time.perf_counter() - t0) * 1000)
            out[name] = {
                "first_ms": first,
                "p50_ms": statistics.median(latencies),
                "p95_ms": _percentile(latencies, 95),
            }
    return out


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    print(json.dumps(query_child(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(","))))
