"""Page chrome and code indentation in chunks of the Python 3.11 HTML documentation, before and after.

Loads 112 pages of ``library/*.html`` from Debian's ``python3.11-doc`` (installed with apt-get when
missing), chunks them as indexing does by default (204 cl100k tokens, 25 overlap: 80% of MiniLM's
window) and reports:

* the share of chunks holding page chrome: a "¶" permalink or navigation text of the Sphinx theme
  ("Navigation", "Show Source", "Table of Contents", "Previous topic", …);
* code: the share of indented lines of ``<pre>`` blocks found in a chunk with their indentation, and the
  share of ``<pre>`` blocks that fit in a chunk and are found whole in one chunk;
* load and chunk time.

The same measurement runs for the loaders of another git revision (``--before``, default ``main``) in a
subprocess importing that revision's ``src`` (exported with ``git archive``), so both columns are from
one machine and one run.

    .venv/bin/python bench/bench_python_docs.py [--before main] [--pages 112] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_loader_memory import export

DOCS = Path("/usr/share/doc/python3.11/html")
NAV_MARKERS = (
    "Navigation",
    "Show Source",
    "Table of Contents",
    "Previous topic",
    "Next topic",
    "This Page",
    "Report a Bug",
    "Quick search",
    "Theme Auto Light Dark",
    "modules |",
    "Created using Sphinx",
    "Found a bug?",
    "Last updated on",
)
SIZE, OVERLAP = 204, 25


def ensure_docs() -> None:
    """Install ``python3.11-doc`` with apt-get when its HTML is missing (a benchmark may; tests never do)."""
    if (DOCS / "library").is_dir():
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "python3.11-doc"]):
        subprocess.run([*sudo, *command, "-o", "DPkg::Lock::Timeout=300"], check=True, env=env)


def pages(count: int) -> list[Path]:
    """``count`` pages spread evenly over the sorted ``library/*.html`` (not only the a* modules)."""
    files = sorted((DOCS / "library").glob("*.html"))
    step = max(1, len(files) // count)
    return files[::step][:count]


def pre_blocks(path: Path) -> list[str]:
    """The verbatim text of each ``<pre>`` block of the page, parsed independently of any loader."""
    from lxml import etree

    root = etree.fromstring(path.read_bytes(), etree.HTMLParser(huge_tree=True))
    return ["".join(pre.itertext()).strip("\n") for pre in root.iter("pre")]


def measure(files: list[Path]) -> dict[str, float]:
    """Chunk the pages with the importable kgrag and count chrome and code figures."""
    from kgrag.config import DocumentsConfig
    from kgrag.documents import TokenCounter, chunk_text, load_path

    counter = TokenCounter.for_encoding("cl100k_base")
    cfg = DocumentsConfig()
    started = time.perf_counter()
    texts = [doc.text for path in files for doc in load_path(path, cfg)]
    loaded = time.perf_counter()
    chunks = [chunk.text for text in texts for chunk in chunk_text(text, counter, SIZE, OVERLAP)]
    chunked = time.perf_counter()
    code = code_figures(files, chunks, counter)
    pilcrow = sum("¶" in chunk for chunk in chunks)
    navigation = sum(any(marker in " ".join(chunk.split()) for marker in NAV_MARKERS) for chunk in chunks)
    chrome = sum("¶" in chunk or any(m in " ".join(chunk.split()) for m in NAV_MARKERS) for chunk in chunks)
    return {
        "pages": len(files),
        "chunks": len(chunks),
        "chunks_with_pilcrow_pct": 100 * pilcrow / len(chunks),
        "chunks_with_navigation_pct": 100 * navigation / len(chunks),
        "chunks_with_chrome_pct": 100 * chrome / len(chunks),
        **code,
        "load_s": loaded - started,
        "chunk_s": chunked - loaded,
    }


def code_figures(files: list[Path], chunks: list[str], counter: object) -> dict[str, float]:
    """Indented code lines found with their indentation in a chunk; code blocks found whole in one chunk."""
    from kgrag.documents import TokenCounter

    assert isinstance(counter, TokenCounter)
    lines = [chunk.split("\n") for chunk in chunks]
    chunk_lines = {line.rstrip() for chunk in lines for line in chunk}
    indented = kept = fitting = whole = 0
    for path in files:
        for block in pre_blocks(path):
            for line in block.split("\n"):
                if re.match(r"[ \t]+\S", line):
                    indented += 1
                    kept += line.rstrip() in chunk_lines
            if "\n" in block and counter.count(block) < SIZE - 10:
                fitting += 1
                whole += any(block in chunk for chunk in chunks)
    return {
        "indented_code_lines": indented,
        "indented_code_lines_kept_pct": 100 * kept / max(1, indented),
        "code_blocks_fitting": fitting,
        "code_blocks_whole_pct": 100 * whole / max(1, fitting),
    }


def run_revision(revision: str, count: int) -> dict[str, float]:
    """:func:`measure` with the ``src`` tree of git ``revision``, in a subprocess."""
    with tempfile.TemporaryDirectory(prefix="kgrag-before-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(export(revision, Path(tmp)))}
        done = subprocess.run(
            [sys.executable, __file__, "--measure-only", "--pages", str(count)],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="main", help="git revision whose loaders give the 'before' column")
    parser.add_argument("--pages", type=int, default=112)
    parser.add_argument("--json", type=Path, help="also write both columns to this file")
    parser.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_only:
        print(json.dumps(measure(pages(args.pages))))
        return
    if shutil.which("git") is None:
        sys.exit("bench_python_docs: git is needed to export the 'before' revision")
    ensure_docs()
    after = measure(pages(args.pages))
    before = run_revision(args.before, args.pages)
    print(f"{'figure':34} {'before (' + args.before + ')':>16} {'after':>10}")
    for key, value in after.items():
        print(f"{key:34} {before.get(key, float('nan')):16.2f} {value:10.2f}")
    if args.json is not None:
        args.json.write_text(json.dumps({"before": before, "after": after}, indent=2) + "\n")


if __name__ == "__main__":
    main()
