"""Ten questions on the Python 3.11 docs: evidence in the top 5, and does the extractive answer state the fact?

Per pipeline, per question, for one or two source trees.

Indexes the same 112 ``library/*.html`` pages as ``bench/bench_python_docs.py`` (Debian's
``python3.11-doc``, installed with apt-get when missing) into a fresh workspace with the default config
(``llm.provider = none``, the default embedder, the default graph extractor), then asks each question with
``hybrid`` and ``auto`` (5 passages) and prints, per question:

* evidence: a retrieved passage holds one of the question's evidence strings (compared lower-cased, with
  white space collapsed and "¶" removed, so that loaders that keep page chrome are not penalised for it);
* fact: the answer text holds one of the question's fact strings (same comparison); for the off-topic
  question, the answer is "not found";
* the answer text, shortened;

plus CPU seconds of indexing (this process and its children) and CPU milliseconds per query.

Each tree runs in its own subprocess with ``PYTHONPATH=TREE/src``, one after the other (never in parallel):
``--before TREE`` runs that tree first, then the tree holding this script; without it only the current
tree runs.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_python_docs_answers.py [--before /path/to/tree] \
        [--workdir DIR] [--json out.json]

``--workdir`` keeps each tree's workspace (``DIR/before``, ``DIR/after``) and reuses one that is already
indexed, so a second run only asks the questions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PIPELINES = ("hybrid", "auto")
K = 5
NOT_FOUND = "not found"


@dataclass(frozen=True)
class Question:
    text: str
    fact: tuple[str, ...]  # any of these in the answer states the fact
    evidence: tuple[str, ...]  # any of these in a retrieved passage is the evidence


QUESTIONS = (
    Question(
        "What is the default protocol of pickle in Python 3.11?",
        ("default protocol is 4",),
        ("currently the default protocol is 4",),
    ),
    Question(
        "What happens when lru_cache maxsize is set to None?",
        ("lru feature is disabled", "grow without bound"),
        ("if maxsize is set to none, the lru feature is disabled",),
    ),
    Question(
        "What compression level does gzip.open use by default?",
        ("the default is 9", "compresslevel=9"),
        (
            "9 is slowest and produces the most compression. 0 is no compression. the default is 9",
            "gzip.open(filename, mode='rb', compresslevel=9",
        ),
    ),
    Question(
        "What is the default relative tolerance of math.isclose?",
        ("1e-09",),
        ("the default tolerance is 1e-09",),
    ),
    Question(
        "How should I open a file that I pass to csv.reader?",
        ("newline=''",),
        ("it should be opened with newline=''", "newline='') as f: reader = csv.reader(f"),
    ),
    Question(
        "What happens if os.makedirs is called for a directory that already exists?",
        ("fileexistserror",),
        ("a fileexistserror is raised if the target directory already exists",),
    ),
    Question(
        "What happens when new items are added to a full bounded deque?",
        ("discarded from the opposite end",),
        ("a corresponding number of items are discarded from the opposite end",),
    ),
    Question(
        "What exception is raised when assigning to a field of a frozen dataclass?",
        ("frozeninstanceerror",),
        (
            "these methods will raise a frozeninstanceerror",
            "exception dataclasses.frozeninstanceerror raised when an implicitly defined",
        ),
    ),
    Question(
        "Where is the smallest element of a heapq heap?",
        ("heap[0]",),
        ("heap[0] is the smallest item", "its smallest element is always the root, heap[0]"),
    ),
    Question(
        "What level is the root logger created with?",
        ("root logger is created with level warning",),
        ("the root logger is created with level warning",),
    ),
)
OFF_TOPIC = Question("Who owns Kestrel?", (NOT_FOUND,), ())


def normalize(text: str) -> str:
    """Lower case, "¶" removed, typographic quotes made plain, white space collapsed."""
    text = text.replace("¶", " ").replace("\u2018", "'").replace("\u2019", "'")
    return " ".join(text.lower().split())


def holds(texts: list[str], needles: tuple[str, ...]) -> bool:
    return any(needle in normalize(text) for text in texts for needle in needles)


def cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def index(workspace: Path, files: list[Path]) -> dict[str, Any]:
    """A fresh default workspace over copies of ``files``; reused when already indexed."""
    from kgrag import Workspace

    if (workspace / "kgrag.toml").exists():
        with Workspace.open(workspace) as ws:
            return {"reused": True, "chunks": ws.status()["chunks"]}
    docs = workspace.parent / f"{workspace.name}-docs"
    docs.mkdir(parents=True, exist_ok=True)
    for path in files:
        shutil.copy2(path, docs / path.name)
    cpu, wall = cpu_s(), time.perf_counter()
    with Workspace.init(workspace) as ws:
        ws.index([docs])
        chunks = ws.status()["chunks"]
    return {"reused": False, "chunks": chunks, "index_cpu_s": cpu_s() - cpu, "index_wall_s": time.perf_counter() - wall}


def ask(workspace: Path) -> dict[str, Any]:
    """Every question with every pipeline; answers, the two judgements and CPU time per query."""
    from kgrag import Workspace

    rows: dict[str, list[dict[str, Any]]] = {}
    cpu_ms: dict[str, float] = {}
    with Workspace.open(workspace) as ws:
        for pipeline in PIPELINES:
            ws.query("warm-up: load the models", pipeline, K)
            started = time.process_time()
            rows[pipeline] = [ask_one(ws, question, pipeline) for question in (*QUESTIONS, OFF_TOPIC)]
            cpu_ms[pipeline] = 1000 * (time.process_time() - started) / (len(QUESTIONS) + 1)
    return {"rows": rows, "query_cpu_ms": cpu_ms}


def ask_one(ws: Any, question: Question, pipeline: str) -> dict[str, Any]:
    response = ws.query(question.text, pipeline, K)
    texts = [item.text for item in response.result.items if item.kind == "chunk"]
    answer = response.answer.text
    refused = bool(getattr(response.answer, "idk", False)) or NOT_FOUND in normalize(answer)
    fact = refused if not question.evidence else holds([answer], question.fact) and not refused
    return {"evidence": holds(texts, question.evidence), "fact": fact, "refused": refused, "answer": answer}


def measure(workspace: Path, count: int) -> dict[str, Any]:
    import kgrag
    from bench_python_docs import ensure_docs, pages

    ensure_docs()
    result: dict[str, Any] = {"kgrag": kgrag.__file__, "pages": count, "load_before": os.getloadavg()}
    result.update(index(workspace, pages(count)))
    result.update(ask(workspace))
    result["load_after"] = os.getloadavg()
    return result


def run_tree(tree: Path, workspace: Path, count: int) -> dict[str, Any]:
    """:func:`measure` with ``tree/src`` first on the path, in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1")}
    command = [sys.executable, __file__, "--measure-only", str(workspace), "--pages", str(count)]
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, env=env)
    out = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    out["tree"] = str(tree)
    out["commit"] = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    return out


def short(text: str, width: int = 90) -> str:
    """The answer on one line without its citation markers, cut to ``width`` characters."""
    flat = " ".join(re.sub(r"\s*\[c[0-9a-f]{6,}\]", "", text).split()).replace("|", "\\|")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def print_table(results: dict[str, dict[str, Any]]) -> None:
    """One Markdown table per pipeline: per question, each tree's evidence, fact and answer; totals below."""
    labels = list(results)
    for pipeline in PIPELINES:
        head = " | ".join(f"{label}: evidence | {label}: fact | {label}: answer" for label in labels)
        print(f"\n### `{pipeline}`\n\n| # | question | {head} |")
        print("| --- | --- |" + " :-: | :-: | --- |" * len(labels))
        for i, question in enumerate((*QUESTIONS, OFF_TOPIC), 1):
            cells = []
            for label in labels:
                row = results[label]["rows"][pipeline][i - 1]
                evidence = "–" if not question.evidence else ("yes" if row["evidence"] else "no")
                cells.append(f"{evidence} | {'yes' if row['fact'] else 'no'} | {short(row['answer'])}")
            print(f"| {i if question.evidence else 'off'} | {question.text} | {' | '.join(cells)} |")
        for label in labels:
            rows = results[label]["rows"][pipeline][: len(QUESTIONS)]
            off = results[label]["rows"][pipeline][-1]
            print(
                f"\n{label}, {pipeline}: evidence in top {K} {sum(r['evidence'] for r in rows)}/{len(QUESTIONS)}, "
                f"states the fact {sum(r['fact'] for r in rows)}/{len(QUESTIONS)}, off-topic "
                f"{'not found' if off['refused'] else 'answered'}, "
                f"{results[label]['query_cpu_ms'][pipeline]:.0f} CPU ms per query"
            )
    for label in labels:
        r = results[label]
        indexed = "reused workspace" if r["reused"] else f"{r['index_cpu_s']:.0f} CPU s, {r['index_wall_s']:.0f} s wall"
        load = ", ".join(f"{x:.1f}" for x in (*r["load_before"], *r["load_after"]))
        print(f"{label} ({r['commit']}): {r['chunks']} chunks; indexing {indexed}; load averages {load}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--before", type=Path, help="a source tree (with src/) to run first, e.g. a git worktree")
    parser.add_argument("--pages", type=int, default=112)
    parser.add_argument("--workdir", type=Path, help="keep (and reuse) the workspaces here")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--measure-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_only:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        print(json.dumps(measure(args.measure_only, args.pages)))
        return 0
    trees = ([("before", args.before.resolve())] if args.before else []) + [("after", REPO)]
    with tempfile.TemporaryDirectory(prefix="kgrag-pydocs-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        results = {label: run_tree(tree, workdir.resolve() / label, args.pages) for label, tree in trees}
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
