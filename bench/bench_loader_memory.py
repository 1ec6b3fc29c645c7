"""Peak memory of reading and chunking one large file, and time on deeply nested HTML, before and after.

Writes four files of its own under ``--work``: a 47 MB plain-text file (paragraphs of prose), 47 MB of
log-like lines without sentence punctuation (one "sentence" to the splitter), a 47 MB
HTML page (sections of paragraphs, lists and ``<pre>`` code) and a 5 MB page of ~417,000 nested
``<div>`` elements. For each, a fresh Python process loads it with ``load_path`` and chunks it as
indexing does (``prepare_file``: 204-token chunks), and reports its peak RSS (``ru_maxrss``) and wall
time; the same runs for the ``src`` of another git revision (``--before``, default ``main``). A run that
passes ``--timeout`` seconds is stopped and reported as such (the nested page took hours before). Last,
the current tree's HTML reader is timed on the slowest page shapes that stay under its nesting bound.

    .venv/bin/python bench/bench_loader_memory.py [--before main] [--work /tmp/kgrag-loader-mem] [--timeout 120]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_BYTES = 47 * 1000 * 1000
WORDS = (
    "shelf bin label part clamp plane vise bench glue screw washer level wall north south drawer "
    "chisel saw mallet square rule pencil stock matte gloss oil filter hour week month inventory"
).split()

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from kgrag.config import DocumentsConfig
from kgrag.documents import TokenCounter
from kgrag.indexing.prepare import ChunkPlan, prepare_file
started = time.perf_counter()
plan = ChunkPlan(204, 25, TokenCounter.for_encoding("cl100k_base"))
prepared = prepare_file(Path(sys.argv[1]), DocumentsConfig(), plan, None)  # built-in loaders: no workspace
chunks = sum(len(d.chunks or ()) for d in prepared.documents)
print(json.dumps({"seconds": time.perf_counter() - started, "peak_rss_mb": resource.getrusage(
    resource.RUSAGE_SELF).ru_maxrss / 1024, "chunks": chunks, "error": prepared.error}))
"""


def sentence(index: int) -> str:
    words = [WORDS[(index * 7 + k * 13) % len(WORDS)] for k in range(8 + index % 9)]
    return " ".join(words).capitalize() + "."


def write_text(path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        index = 0
        while out.tell() < TARGET_BYTES:
            out.write(" ".join(sentence(index + k) for k in range(5)) + "\n\n")
            index += 5


def write_lines(path: Path) -> None:
    """Log-like lines without sentence punctuation or blank lines: to the sentence splitter, one sentence."""
    with path.open("w", encoding="utf-8") as out:
        index = 0
        while out.tell() < TARGET_BYTES:
            out.write("\n".join(sentence(index + k).rstrip(".").lower() for k in range(50)) + "\n")
            index += 50


def write_html(path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write("<!DOCTYPE html><html><head><title>Workshop handbook</title></head><body>")
        out.write('<nav><a href="#">Home</a></nav><main>')
        index = 0
        while out.tell() < TARGET_BYTES:
            out.write(f'<section><h2>Section {index}<a class="headerlink" href="#s{index}">¶</a></h2>')
            out.write(
                "".join(f"<p>{sentence(index + k)} <b>{WORDS[k]}</b> {sentence(index + k + 1)}</p>" for k in range(4))
            )
            out.write(f"<ul><li>{sentence(index)}</li><li>{sentence(index + 1)}</li></ul>")
            out.write(
                f"<pre>def place(part):\n    if part.weight &gt; {index % 50}:\n        return 0\n</pre></section>"
            )
            index += 4
        out.write("</main></body></html>")


def write_nested(path: Path) -> None:
    depth = 5_000_000 // len("<div>x</div>")
    path.write_text("<html><body>" + "<div>x" * depth + "</div>" * depth + "</body></html>", encoding="utf-8")


WORST_CHILD = r"""
import json, time
from kgrag.documents.html_text import html_to_text, TooDeep
shapes = {
    "508 open div, 1,250,000 stray </a>": "<html><body>" + "<div>" * 508 + "</a>" * 1_250_000,
    "508 open div, 710,000 stray </span>": "<html><body>" + "<div>" * 508 + "</span>" * 710_000,
    "1,600 x 500 nested div": ("<div>" * 500 + "x" + "</div>" * 500) * 1600,
}
out = {}
for name, page in shapes.items():
    started = time.perf_counter()
    try:
        html_to_text(page.encode())
        outcome = "read"
    except TooDeep:
        outcome = "skipped"
    out[name] = {"mb": round(len(page) / 1e6, 1), "seconds": time.perf_counter() - started, "outcome": outcome}
print(json.dumps(out))
"""


def run(file: Path, pythonpath: str, timeout: float) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": pythonpath}
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(file)], capture_output=True, text=True, env=env, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"timed_out_after_s": timeout}
    if done.returncode != 0:
        return {"failed": done.stderr.strip().splitlines()[-1:]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def export(revision: str, into: Path) -> Path:
    """The ``src`` tree of git ``revision`` extracted under ``into``; its path, to put on ``PYTHONPATH``."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", revision, "src"], check=True, capture_output=True
    ).stdout
    (into / "src.tar").write_bytes(archive)
    with tarfile.open(into / "src.tar") as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="main")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kgrag-loader-mem")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--after-only", action="store_true", help="skip the 'before' revision")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    files = {
        "text_47mb.txt": write_text,
        "lines_47mb.txt": write_lines,
        "page_47mb.html": write_html,
        "nested_5mb.html": write_nested,
    }
    for name, write in files.items():
        if not (args.work / name).exists():
            write(args.work / name)
    with tempfile.TemporaryDirectory(prefix="kgrag-before-") as tmp:
        trees = {} if args.after_only else {f"before ({args.before})": str(export(args.before, Path(tmp)))}
        trees["after"] = str(REPO / "src")
        results = {
            label: {name: run(args.work / name, tree, args.timeout) for name in files} for label, tree in trees.items()
        }
    worst = subprocess.run(
        [sys.executable, "-c", WORST_CHILD],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        check=True,
    )
    results["after: worst HTML shapes under the nesting bound"] = json.loads(worst.stdout.strip().splitlines()[-1])
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
