"""Entities of the LLM-free (spaCy) graph on a documentation site, before and after: how many are pieces
of code, how many are isolated, and what embedding them costs next to embedding the chunks.

Indexes a sample of the Python 3.11 HTML library pages (Debian's ``python3.11-doc``; every ``--every``-th
page in name order, ``--pages`` of them) into a fresh workspace per tree with the default ``standard``
pipeline, once with the ``src`` of git revision ``--before`` (exported with ``git archive`` and run in a
subprocess) and once with this tree, then reads each workspace's database:

* **code fragments**, two ways: the extractor's own test (:func:`kgrag.graph.extract.nlp_filters.is_code_fragment`,
  which the after tree filters on, so its figure there is 0 by construction) and an independent one that
  does not share its code: a name holding ``>>>``, ``=``, ``|``, a quote, a brace or a bracket;
* API identifiers (``shutil.copystat``, ``O_NONBLOCK``, ``parse_args()``), kept as names, counted apart;
* isolated entities (no relation), relations, entity-description words against chunk words;
* the model seconds of the chunk embedding and of the graph embedding (``embed.model`` and
  ``embed-graph.model`` of the index report) with the embedder of ``--embedder``.

    .venv/bin/python bench/bench_doc_site_entities.py [--before HEAD~1] [--pages 40] [--embedder onnx]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_loader_memory import export
from kgrag.graph.extract.nlp_filters import is_code_fragment

DOCS = Path("/usr/share/doc/python3.11/html/library")
INDEPENDENT = re.compile(r">>>|[=|\"'{}\[\]]")
SHARES = ("code (extractor's test)", "code (independent test)", "API identifiers", "isolated")
IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*(\(\))?$")
INDEX = (
    "import sys, json; from kgrag import Workspace; "
    "ws = Workspace.init(sys.argv[1]); report = ws.index([sys.argv[2]]); "
    "print(json.dumps({k: float(v) for k, v in report.seconds.items()}))"
)


def sample(pages: int, every: int, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    for page in sorted(DOCS.glob("*.html"))[::every][:pages]:
        shutil.copy(page, into / page.name)
    return into


def index(src: Path | None, workspace: Path, docs: Path, embedder: str) -> dict[str, float]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "KGRAG_EMBEDDING__PROVIDER": embedder}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    done = subprocess.run(
        [sys.executable, "-c", INDEX, str(workspace), str(docs)], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"indexing failed: {done.stderr.strip().splitlines()[-1:]}")
    seconds: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return seconds


def graph_figures(database: Path) -> dict[str, float]:
    con = sqlite3.connect(database)
    names = [name for (name,) in con.execute("SELECT name FROM entities")]
    linked = {end for pair in con.execute("SELECT source_id, target_id FROM relations") for end in pair}
    isolated = sum(1 for (entity,) in con.execute("SELECT id FROM entities") if entity not in linked)
    own = sum(map(is_code_fragment, names))
    dotted = [n for n in names if "_" in n or "." in n or n.endswith("()")]
    identifiers = sum(1 for n in dotted if IDENTIFIER.match(n) and not is_code_fragment(n))
    figures = {
        "entities": len(names),
        "code (extractor's test)": own / len(names),
        "code (independent test)": sum(1 for n in names if INDEPENDENT.search(n)) / len(names),
        "API identifiers": identifiers / len(names),
        "isolated": isolated / len(names),
        "relations": con.execute("SELECT count(*) FROM relations").fetchone()[0],
        "description words": sum(len(d.split()) for (d,) in con.execute("SELECT description FROM entities")),
        "chunk words": sum(len(t.split()) for (t,) in con.execute("SELECT text FROM chunks")),
    }
    con.close()
    return figures


def run(label: str, src: Path | None, docs: Path, work: Path, embedder: str) -> dict[str, float]:
    workspace = work / f"ws-{label}"
    shutil.rmtree(workspace, ignore_errors=True)
    seconds = index(src, workspace, docs, embedder)
    figures = graph_figures(workspace / "kgrag.sqlite3")
    for stage in ("extract.model", "embed.model", "embed-graph.model"):
        figures[f"{stage} s"] = seconds.get(stage, float("nan"))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="HEAD~1", help="git revision of the 'before' column")
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--every", type=int, default=8, help="take every n-th page in name order")
    parser.add_argument("--embedder", default="fake", help="embedding.provider for both runs (fake, onnx)")
    args = parser.parse_args()
    if not DOCS.is_dir():
        print(f"skipped: {DOCS} is absent (apt-get install python3.11-doc)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        docs = sample(args.pages, args.every, work / "docs")
        before = run("before", export(args.before, work), docs, work, args.embedder)
        after = run("after", None, docs, work, args.embedder)
    print(f"{args.pages} pages, embedder {args.embedder}; before = {args.before}, after = this tree")
    print("| figure | before | after |\n| --- | ---: | ---: |")
    for key in before:
        fmt = "{:.1%}" if key in SHARES else "{:,.2f}" if key.endswith(" s") else "{:,}"
        print(f"| {key} | {fmt.format(before[key])} | {fmt.format(after[key])} |")


if __name__ == "__main__":
    main()
