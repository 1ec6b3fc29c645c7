"""Cold-start time and peak memory of CLI commands, each in a fresh process, next to a bare interpreter start
measured in the same run (the baseline: what any Python command costs on this machine right now).

    .venv/bin/python bench/bench_cli_startup.py [--repeat 5] [--provider onnx|sentence-transformers|fake]
        [--docs N (0: the whole sample corpus)] [--before-src /work/main/src]

Indexes a small workspace (sample corpus subset, the chosen embedder, the default NLP graph) in a temp
directory — that first ``kgrag index`` is itself measured — then times ``kgrag --help``, ``--version``,
``status``, ``pipelines``, ``cost`` and a ``bm25``, ``dense`` and ``hybrid`` query. Prints the median
wall and CPU seconds (user + system: what a loaded machine inflates least), the ratio of the median wall
to the bare interpreter's, and the largest peak RSS of the child (``wait4``'s ``ru_maxrss``) over the
repeats, with the load average before and after. ``--provider`` defaults to the configured default.

Bytecode is cached in a temp ``PYTHONPYCACHEPREFIX`` and each command runs once unmeasured first, so the
figures are those of an installed package (pip compiles on install) even where the environment sets
``PYTHONDONTWRITEBYTECODE``; without it every start would compile kgrag (~0.15 s here).
``--before-src DIR`` measures another source tree (e.g. the main branch's ``src``) in the same run, on
its own workspace, command by command after this tree's, and prints the CPU ratio before/after.
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
Figures = tuple[float, float, float]
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


def _measure(command: list[str], repeat: int, env: dict[str, str]) -> Figures:
    _run_once(command, env)  # unmeasured: writes the bytecode cache
    runs = [_run_once(command, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), max(r[2] for r in runs)


def _line(label: str, wall: float, cpu: float, peak: float, baseline: float, before: Figures | None = None) -> str:
    line = f"{label:<28} {wall:7.3f} s  {wall / baseline:6.1f}x  cpu {cpu:6.3f} s  {peak:6.0f} MB"
    if before is not None:
        line += f"   | before: cpu {before[1]:6.3f} s  {before[2]:6.0f} MB  (cpu {before[1] / max(cpu, 1e-9):4.1f}x)"
    return line


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _tree_env(env: dict[str, str], src: Path) -> dict[str, str]:
    return {**env, "PYTHONPATH": str(src)}


def _index(tmp: Path, name: str, docs: Path, env: dict[str, str]) -> tuple[Path, Figures]:
    ws = tmp / name
    subprocess.run([*KGRAG, "init", str(ws)], check=True, capture_output=True, env=env)
    return ws, _run_once([*KGRAG, "index", str(docs), "-w", str(ws)], env)


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
    parser.add_argument("--docs", type=int, default=6, help="sample documents to index (0: all)")
    parser.add_argument("--before-src", type=Path, default=None, help="another source tree to compare with")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kgrag-cli-bench-"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.provider:
        env["KGRAG_EMBEDDING__PROVIDER"] = args.provider
    after_env = _tree_env(env, REPO / "src")
    before_env = _tree_env(env, args.before_src.resolve()) if args.before_src else None
    try:
        docs = tmp / "docs"
        docs.mkdir()
        for path in sorted(SAMPLE.glob("*.md"))[: args.docs or None]:
            shutil.copy(path, docs / path.name)
        print(f"load average at start: {_load()}; cores: {os.cpu_count()}")
        baseline, base_cpu, base_mb = _measure([sys.executable, "-c", "pass"], args.repeat, env)
        print(f"embedder: {args.provider or 'default'}; median of {args.repeat}; peak RSS = max over runs")
        print(_line("bare interpreter (baseline)", baseline, base_cpu, base_mb, baseline))
        ws, indexed = _index(tmp, "ws", docs, after_env)
        old_ws, old_indexed = _index(tmp, "ws-before", docs, before_env) if before_env else (None, None)
        print(_line(f"kgrag index ({len(list(docs.iterdir()))} docs)", *indexed, baseline, old_indexed))
        old_commands = _commands(old_ws) if old_ws else {}
        for label, argv in _commands(ws).items():
            figures = _measure([*KGRAG, *argv], args.repeat, after_env)
            old = _measure([*KGRAG, *old_commands[label]], args.repeat, before_env) if before_env else None
            print(_line(label, *figures, baseline, old), flush=True)
        print(f"load average at end: {_load()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
