"""Framework overhead per query, model time counted apart: each pipeline on GraphRAG-Bench Medical (or
another dataset's questions), with every embedding and reranker call timed separately through a wrapper.

    .venv/bin/python bench/bench_query_overhead.py --workspace DIR [--dataset DIR] [--pipelines a,b] [--n 40] [--copy]
        [--json OUT] [--compare OTHER.json]

The workspace must hold the dataset's corpus (Medical by default; ``--dataset`` names the folder of
another ``questions.json``, e.g. the Novel books) indexed with MiniLM and the spaCy graph; ``--copy``
works on a copy in a temp directory (queries write bookkeeping; never point this at a workspace others
use without it). With ``llm = none`` (the default here) the answer is the extractive one. Per query: the
wall and CPU (thread) milliseconds of ``ws.query`` (retrieval + answer), minus those spent inside model
calls (outermost call only, so the reranker's own embedding is not counted twice). Prints p50/p95 of the
framework part per pipeline, the ratio to the target (5 ms for chunk pipelines, 10 ms for graph
pipelines) and, when ``hybrid`` ran first, the p50 ratio to it (the baseline of the same run) with a
bootstrap interval. ``--json`` keeps each question's figure; ``--compare`` reads another tree's file (same
workspace, dataset and ``--n``) and prints the paired after − before difference per pipeline. A warm-up per
pipeline (not counted) loads the hot indexes first: ``WARM_UP`` retrievals and one query of a fixed
question (the in-memory BM25 index of ``store.lexical_index = auto`` is built after 8 searches).
Skips when the dataset is absent.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kgrag import Workspace
from kgrag.evaluation import load_dataset
from kgrag.evaluation.sampling import stratified_sample
from kgrag.evaluation.stats.intervals import t_estimate
from kgrag.models.rerankers.basic import KeepOrderReranker, WordOverlapReranker
from kgrag.models.rerankers.fused import FusedReranker

REPO = Path(__file__).resolve().parents[1]
DATASETS = {name: REPO.parent / "shared" / "datasets" / f"graphrag-bench-{name}" for name in ("medical", "novel")}
MEDICAL = DATASETS["medical"]
CHUNK = "bm25,dense,hybrid,rerank,qe,hyde,combined"
GRAPH = "graph-local,graph-global,graph-hybrid,graph-mix,graph-mix-rerank,ppr,ppr-passages,paths,auto"
TARGET_MS = {"chunk": 5.0, "graph": 10.0}
WARM_UP = 10
WARM_UP_QUESTION = "What is the most common symptom of influenza?"


class ModelClock:
    """Wall and CPU seconds spent inside wrapped model calls; nested calls count once (the outermost)."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self._depth = 0

    def wrap(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._depth += 1
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return call(*args, **kwargs)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self.wall += time.perf_counter() - wall
                    self.cpu += time.thread_time() - cpu

        return timed


# Rerankers that run no model (the offline default `fused` and `lexical` count query words and read stored
# vectors): their time is framework time, so they are not routed through the model clock.
MODEL_FREE_RERANKERS = (KeepOrderReranker, WordOverlapReranker, FusedReranker)


def instrument(ws: Workspace, clock: ModelClock) -> None:
    """Route the embedder's and the reranker's calls through ``clock`` (models are loaded here, first)."""
    keyed = ws.components.embedder()
    inner = keyed.inner()
    inner.embed = clock.wrap(inner.embed)  # type: ignore[method-assign]
    reranker = ws.components.query_context.get("reranker")
    if reranker is not None and not isinstance(reranker, MODEL_FREE_RERANKERS):
        reranker.rerank = clock.wrap(reranker.rerank)  # type: ignore[method-assign]


def _copy(workspace: Path) -> Path:
    """A private copy made with SQLite's backup API (consistent even if the source is open elsewhere)."""
    target = Path(tempfile.mkdtemp(prefix="kgrag-overhead-")) / "ws"
    target.mkdir()
    shutil.copy(workspace / "kgrag.toml", target / "kgrag.toml")
    source = sqlite3.connect(f"file:{workspace / 'kgrag.sqlite3'}?mode=ro", uri=True)
    with sqlite3.connect(target / "kgrag.sqlite3") as copy:
        source.backup(copy)
    source.close()
    return target


def measure(
    ws: Workspace, pipeline: str, questions: Sequence[str], clock: ModelClock
) -> tuple[dict[str, float], list[float]]:
    """The row's figures and the framework CPU milliseconds of each question, in question order."""
    for _ in range(WARM_UP):
        ws.retrieve(WARM_UP_QUESTION, pipeline)  # hot indexes load (lexical: after 8 searches)
    ws.query(WARM_UP_QUESTION, pipeline)
    wall_ms, cpu_ms, model_ms = [], [], []
    for question in questions:
        clock.wall = clock.cpu = 0.0
        wall, cpu = time.perf_counter(), time.thread_time()
        ws.query(question, pipeline)
        wall_ms.append(1000 * (time.perf_counter() - wall - clock.wall))
        cpu_ms.append(1000 * (time.thread_time() - cpu - clock.cpu))
        model_ms.append(1000 * clock.wall)
    cpu_sorted = sorted(cpu_ms)
    row = {
        "cpu_p50": statistics.median(cpu_ms),
        "cpu_p95": cpu_sorted[int(0.95 * (len(cpu_sorted) - 1))],
        "wall_p50": statistics.median(wall_ms),
        "model_p50": statistics.median(model_ms),
    }
    return row, cpu_ms


def medical_setup(
    description: str, n: int, seed: int, parser: argparse.ArgumentParser | None = None
) -> tuple[argparse.Namespace, Path, list[str]] | None:
    """The options every per-pipeline Medical bench shares (``--workspace``, ``--dataset``, ``--pipelines``,
    ``--n``, ``--copy``, added to ``parser`` when given), the workspace to use and the sampled questions;
    None (after saying so) without the data."""
    parser = parser or argparse.ArgumentParser(description=description)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, default=MEDICAL, help="folder holding questions.json")
    parser.add_argument("--pipelines", default=f"{CHUNK},{GRAPH}")
    parser.add_argument("--n", type=int, default=n, help="questions per pipeline (stratified sample)")
    parser.add_argument("--copy", action="store_true", help="work on a temporary copy of the workspace")
    args = parser.parse_args()
    if not (args.dataset / "questions.json").exists():
        print(f"skipped: {args.dataset} is absent")
        return None
    path = _copy(args.workspace) if args.copy else args.workspace
    sample = stratified_sample(load_dataset(args.dataset / "questions.json"), args.n, seed=seed)
    questions = [q.question for q in sample]
    return args, path, questions


RESAMPLES = 2000


def _ratio(values: list[float], baseline: list[float] | None) -> str:
    """p50 framework CPU over hybrid's on the same questions, with a 95% percentile-bootstrap interval
    (questions resampled in pairs: a median has no t interval, and one slow question skews a mean)."""
    if not baseline or len(baseline) != len(values):
        return ""
    mine, base = np.array(values), np.array(baseline)
    picks = np.random.default_rng(0).integers(0, len(mine), size=(RESAMPLES, len(mine)))
    ratios = np.median(mine[picks], axis=1) / np.median(base[picks], axis=1)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return f"[{low:.2f}, {high:.2f}]"


def _compare(before: dict[str, list[float]], after: dict[str, list[float]]) -> None:
    """Per pipeline: after − before framework CPU, paired by question (mean and 95% t interval)."""
    print("after - before, framework CPU ms per question (mean [95% interval]), same questions:")
    for pipeline, values in after.items():
        if len(before.get(pipeline, [])) == len(values):
            found = t_estimate(np.array(values) - np.array(before[pipeline]), 0.95)
            interval = f"[{found.ci95[0]:+.2f}, {found.ci95[1]:+.2f}]" if found.ci95 else ""
            print(f"  {pipeline:<18} {found.mean or 0.0:+.2f} {interval}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write each question's framework CPU ms per pipeline here")
    parser.add_argument("--compare", type=Path, help="another tree's --json file: paired differences")
    setup = medical_setup(__doc__.splitlines()[0], n=40, seed=1, parser=parser)
    if setup is None:
        return 0
    args, path, questions = setup
    clock = ModelClock()
    graph = set(GRAPH.split(","))
    print(f"{len(questions)} questions of {args.dataset.name} per pipeline; llm = none; framework = query - models")
    print(
        f"{'pipeline':<18} {'cpu p50':>8} {'cpu p95':>8} {'wall p50':>9} {'model p50':>10} {'target':>7}"
        f" {'p50/target':>10} {'p50/hybrid':>10} [95%]"
    )
    per_question: dict[str, list[float]] = {}
    with Workspace.open(path, llm={"provider": "none"}) as ws:
        instrument(ws, clock)
        for pipeline in args.pipelines.split(","):
            row, per_question[pipeline] = measure(ws, pipeline, questions, clock)
            target = TARGET_MS["graph" if pipeline in graph else "chunk"]
            hybrid = per_question.get("hybrid")
            p50_ratio = f"{row['cpu_p50'] / statistics.median(hybrid):9.2f}x" if hybrid else f"{'':>10}"
            print(
                f"{pipeline:<18} {row['cpu_p50']:7.2f}ms {row['cpu_p95']:7.1f}ms {row['wall_p50']:8.1f}ms "
                f"{row['model_p50']:9.1f}ms {target:6.0f}ms {row['cpu_p50'] / target:9.2f}x {p50_ratio}  "
                f"{_ratio(per_question[pipeline], hybrid)}",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(per_question), encoding="utf-8")
    if args.compare:
        _compare(json.loads(args.compare.read_text(encoding="utf-8")), per_question)
    if args.copy:
        shutil.rmtree(path.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
