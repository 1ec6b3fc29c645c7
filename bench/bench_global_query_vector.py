"""Could LightRAG's global search read the question's own vector instead of embedding its theme words?

Without an LLM, ``graph-mix`` and ``graph-mix-rerank`` take the question's single content words that name no
entity as its high-level keywords and embed them joined (``GraphGlobalSearch``): one model call per question
on top of the question's own embedding, which every other step reuses. This bench runs both pipelines on
every question of a dataset twice in one process — as shipped, then with the global search handed no
high-level keywords, so it falls back to the question (whose vector is cached) — and prints per pipeline and
question type the evidence recall before and after, the paired difference with its 95 % interval
(:mod:`kgrag.evaluation.stats`) and how many questions changed, and the CPU seconds of each pass (model time
included: it is the model call that goes).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_global_query_vector.py WS QUESTIONS
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

import kgrag.retrieval.steps.lightrag as lightrag
from kgrag import Workspace
from kgrag.evaluation.datasets import load_dataset
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from recall_cells import cell

PIPELINES = ("graph-mix-rerank", "graph-mix")


def recalls(report: RetrievalEvalReport) -> dict[tuple[str, str], float]:
    return {(o.pipeline, o.id): o.recall for o in report.outcomes if o.recall is not None}


@contextmanager
def question_vector() -> Iterator[None]:
    """Global search with no high-level keywords (so on the question's vector) while inside."""
    shipped = lightrag.GraphGlobalSearch.run

    def run(self: Any, state: Any, env: Any) -> None:
        keywords = state.keywords
        state.keywords = {**keywords, "high": []}
        try:
            shipped(self, state, env)
        finally:
            state.keywords = keywords

    lightrag.GraphGlobalSearch.run = run  # type: ignore[method-assign]
    try:
        yield
    finally:
        lightrag.GraphGlobalSearch.run = shipped  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("questions", type=Path)
    args = parser.parse_args()
    items = load_dataset(args.questions)
    types = {item.id: item.question_type for item in items}
    with Workspace.open(args.workspace) as ws:
        cpu = time.process_time()
        before = recalls(ws.eval.retrieval(items, list(PIPELINES), 5))
        cpu_before, cpu = time.process_time() - cpu, time.process_time()
        with question_vector():
            after = recalls(ws.eval.retrieval(items, list(PIPELINES), 5))
        cpu_after = time.process_time() - cpu
    print(f"CPU (model time included): shipped {cpu_before:.0f} s, question vector {cpu_after:.0f} s")
    for pipeline in PIPELINES:
        keys = [k for k in before if k[0] == pipeline and k in after]
        for kind in ["All", *sorted({types[k[1]] for k in keys})]:
            chosen = [k for k in keys if kind == "All" or types[k[1]] == kind]
            diff = np.array([after[k] - before[k] for k in chosen])
            print(
                f"{pipeline:18s} {kind:22s} n={len(chosen):5d} shipped {np.mean([before[k] for k in chosen]):.3f} "
                f"question vector {np.mean([after[k] for k in chosen]):.3f} "
                f"difference {cell(diff, signed=True, digits=4)} changed {int((diff != 0).sum())}"
            )


if __name__ == "__main__":
    main()
