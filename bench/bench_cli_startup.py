"""Cold-start time of CLI commands, each in a fresh process, next to a bare interpreter start measured in
the same run (the baseline: what any Python command costs on this machine right now).

    .venv/bin/python bench/bench_cli_startup.py [--repeat 5]

Builds a small workspace (sample corpus subset, fake embedder, no graph) in a temp directory, then times
``kgrag --help``, ``kgrag status``, ``kgrag query --pipeline bm25`` and ``kgrag pipelines``; prints median
seconds and the ratio to the bare interpreter.
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


def _median_seconds(command: list[str], repeat: int, env: dict[str, str]) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kgrag-cli-bench-"))
    env = {**os.environ, "KGRAG_EMBEDDING__PROVIDER": "fake", "KGRAG_GRAPH__EXTRACTOR": "none"}
    try:
        ws = tmp / "ws"
        docs = tmp / "docs"
        docs.mkdir()
        for path in sorted(SAMPLE.glob("*.md"))[:6]:
            shutil.copy(path, docs / path.name)
        subprocess.run([*KGRAG, "init", str(ws)], check=True, capture_output=True, env=env)
        subprocess.run([*KGRAG, "index", str(docs), "-w", str(ws)], check=True, capture_output=True, env=env)
        baseline = _median_seconds([sys.executable, "-c", "pass"], args.repeat, env)
        print(f"bare interpreter: {baseline:.3f} s (baseline)")
        commands = {
            "kgrag --help": ["--help"],
            "kgrag status": ["status", "-w", str(ws)],
            "kgrag query --pipeline bm25": ["query", "Who leads the Platform team?", "-p", "bm25", "-w", str(ws)],
            "kgrag pipelines": ["pipelines", "-w", str(ws)],
        }
        for label, argv in commands.items():
            seconds = _median_seconds([*KGRAG, *argv], args.repeat, env)
            print(f"{label:<30} {seconds:.3f} s  ({seconds / baseline:.1f}x bare)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
