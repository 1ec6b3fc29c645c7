"""Cold-start time and peak memory of CLI commands, each in a fresh process, next to a bare interpreter start
measured in the same run (the baseline: what any Python command costs on this machine right now).

    .venv/bin/python bench/bench_cli_startup.py [--repeat 5] [--provider onnx|sentence-transformers|fake]

Indexes a small workspace (sample corpus subset, the chosen embedder, the default NLP graph) in a temp
directory — that first ``kgrag index`` is itself measured — then times ``kgrag --help``, ``--version``,
``status``, ``pipelines``, ``cost`` and a ``bm25``, ``dense`` and ``hybrid`` query. Prints the median
seconds, the ratio to the bare interpreter and the largest peak RSS of the child (``wait4``'s
``ru_maxrss``) over the repeats. ``--provider`` defaults to the configured default embedder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "sample" / "docs"
KGRAG = [sys.executable, "-m", "kgrag.cli"]
QUESTION = "Who leads the Platform team?"


def _run_once(command: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system: less inflated than wall time when other work shares the
    cores) and peak RSS (MB) of one child process, measured on the child itself (not the group)."""
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    stderr = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}): {stderr}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # Linux reports KiB


def _measure(command: list[str], repeat: int, env: dict[str, str]) -> tuple[float, float, float]:
    runs = [_run_once(command, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), max(r[2] for r in runs)


def _line(label: str, wall: float, cpu: float, peak: float, baseline: float) -> str:
    return f"{label:<28} {wall:7.3f} s  {wall / baseline:6.1f}x  cpu {cpu:6.3f} s  {peak:6.0f} MB"


def _commands(ws: Path) -> dict[str, list[str]]:
    w = ["-w", str(ws)]
    return {
        "kgrag --help": ["--help"],
        "kgrag --version": ["--version"],
        "kgrag status": ["status", *w],
        "kgrag pipelines": ["pipelines", *w],
        "kgrag cost": ["cost", *w],
        "kgrag query -p bm25": ["query", QUESTION, "-p", "bm25", *w],
        "kgrag query -p dense": ["query", QUESTION, "-p", "dense", *w],
        "kgrag query -p hybrid": ["query", QUESTION, "-p", "hybrid", *w],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--provider", default=None, help="embedding.provider (default: the configured default)")
    parser.add_argument("--docs", type=int, default=6, help="sample documents to index")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kgrag-cli-bench-"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    if args.provider:
        env["KGRAG_EMBEDDING__PROVIDER"] = args.provider
    try:
        ws, docs = tmp / "ws", tmp / "docs"
        docs.mkdir()
        for path in sorted(SAMPLE.glob("*.md"))[: args.docs]:
            shutil.copy(path, docs / path.name)
        subprocess.run([*KGRAG, "init", str(ws)], check=True, capture_output=True, env=env)
        baseline, base_cpu, base_mb = _measure([sys.executable, "-c", "pass"], args.repeat, env)
        print(f"embedder: {args.provider or 'default'}; median of {args.repeat}; peak RSS = max over runs")
        print(_line("bare interpreter (baseline)", baseline, base_cpu, base_mb, baseline))
        print(_line("kgrag index (first run)", *_run_once([*KGRAG, "index", str(docs), "-w", str(ws)], env), baseline))
        for label, argv in _commands(ws).items():
            print(_line(label, *_measure([*KGRAG, *argv], args.repeat, env), baseline))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
