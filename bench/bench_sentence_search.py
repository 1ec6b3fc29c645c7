"""Sentence vectors at query time: what the in-memory sentence matrix costs and saves, in one process.

    .venv/bin/python bench/bench_sentence_search.py --workspace DIR [--n 200]

The workspace must hold GraphRAG-Bench Medical indexed with sentence vectors (``embedding.sentence_vectors``
on, or ``auto`` with chunks larger than the embedder's window, e.g. 480/56). Query vectors are embedded
first, so every figure is framework CPU time. Prints:

* the matrix's load time and memory (once per store generation);
* the ``fused`` reranker's sentence scores for each question's ``rerank`` pool (50 passages): from the
  matrix (every chunk scored once per query; in a pipeline the dense search step already did that, and
  the reranker only looks its passages up, also shown) against reading each passage's
  sentence vectors by text, as before the matrix (a passage not met yet is split, hashed and read from
  the store, then cached), in question order and all cached, with the ratios to the matrix;
* a dense search step with ``retrieval.dense_sentence_share`` 0.5 (blended with every chunk's best
  sentences) against 0 (chunk cosine only), same questions, same process, and the ratio.

Skips when the dataset is absent.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from kgrag import Workspace
from kgrag.core.context import ContextItem
from kgrag.evaluation import load_dataset
from kgrag.evaluation.sampling import stratified_sample
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.sentence_matrix import SentenceMatrix
from kgrag.retrieval.resources.sentences import SENTENCE_MEANS_CACHE, sentence_means
from kgrag.retrieval.steps import DenseSearch, QueryState
from kgrag.retrieval.steps.sentence_scores import TOP_SENTENCES, best_sentence_similarities, scores_by_text

REPO = Path(__file__).resolve().parents[1]
MEDICAL = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical"


ROUNDS = 3


def mean_cpu_ms(calls: list[Callable[[], object]]) -> float:
    """Mean CPU milliseconds per call over all ``calls``, timed as one block: on this VM one
    ``thread_time()`` call itself costs ~0.5 ms, more than what is measured here."""
    started = time.process_time()
    for call in calls:
        call()
    return 1000 * (time.process_time() - started) / max(1, len(calls))


def alternate(variants: dict[str, list[Callable[[], object]]]) -> dict[str, float]:
    """Each variant's mean CPU ms per call, the median of ``ROUNDS`` rounds run in turn (a busy moment
    of the shared machine then hits every variant)."""
    rounds: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(ROUNDS):
        for name, calls in variants.items():
            rounds[name].append(mean_cpu_ms(calls))
    return {name: statistics.median(values) for name, values in rounds.items()}


def rerank_pools(ws: Workspace, questions: list[str]) -> list[list[ContextItem]]:
    """Each question's ``rerank`` pool: the pipeline's steps before its reranker (hydrated passages)."""
    first_stage = ws.querying.pipeline("rerank").before("rerank")
    ctx = ws.components.query_context
    return [[i for i in first_stage.run(q, ctx, 50).items if i.kind == "chunk"] for q in questions]


def sentence_scores(env: QueryContext, questions: list[str], pools: list[list[ContextItem]]) -> None:
    """The reranker's sentence scores: from the matrix, against reading passages by text (all cached)."""
    matrix = [partial(best_sentence_similarities, pool, env, q) for q, pool in zip(questions, pools, strict=True)]
    by_text = [
        partial(scores_by_text, pool, list(range(len(pool))), env, env.embed_query(q), [None] * len(pool))
        for q, pool in zip(questions, pools, strict=True)
    ]
    first_pass = mean_cpu_ms(by_text)  # passages met for the first time are split, hashed and read
    times = alternate({"matrix": matrix, "by text": by_text})
    base = times["matrix"]
    kept = questions[:SENTENCE_MEANS_CACHE]
    for question in kept:
        sentence_means(env, question)  # what the query's dense search step leaves behind
    shared = mean_cpu_ms(matrix[: len(kept)] * 10)
    print(
        f"reranker sentence scores, 50-passage pool, CPU per query: matrix {base:.2f} ms computing every "
        f"chunk's scores, {shared:.2f} ms reusing those of the query's dense search"
    )
    print(
        f"  per passage by text: first pass over the questions {first_pass:.2f} ms ({first_pass / base:.1f}x the "
        f"matrix), every passage cached {times['by text']:.2f} ms ({times['by text'] / base:.1f}x)"
    )


def dense_step(blended: Workspace, plain: Workspace, questions: list[str]) -> None:
    """One dense search step per question, blended with sentence scores against chunk cosine only; more
    questions than the 16 kept sentence-score arrays, so each round computes them anew."""

    def calls(ws: Workspace) -> list[Callable[[], object]]:
        env = ws.components.query_context
        return [partial(DenseSearch(pool=50).run, QueryState(query=q, k=5, queries=[q]), env) for q in questions]

    times = alternate({"blended": calls(blended), "plain": calls(plain)})
    base = times["plain"]
    print(
        f"dense search step (pool 50), CPU per query: chunk cosine only {base:.2f} ms, blended with sentences "
        f"{times['blended']:.2f} ms ({times['blended'] / base:.2f}x)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--n", type=int, default=200, help="questions (stratified sample)")
    args = parser.parse_args()
    if not (MEDICAL / "questions.json").exists():
        print(f"skipped: {MEDICAL} is absent")
        return 0
    questions = [q.question for q in stratified_sample(load_dataset(MEDICAL / "questions.json"), args.n, seed=7)]
    with (
        Workspace.open(args.workspace, embedding={"sentence_vectors": True}) as blended,
        Workspace.open(
            args.workspace, embedding={"sentence_vectors": True}, retrieval={"dense_sentence_share": 0}
        ) as plain,
    ):
        env = blended.components.query_context
        started, cpu = time.perf_counter(), time.process_time()
        matrix = SentenceMatrix.load(blended.store, env.model_id)
        load_s, load_cpu = time.perf_counter() - started, time.process_time() - cpu
        if not matrix.usable:
            print("skipped: the workspace holds no sentence vectors (index with embedding.sentence_vectors on)")
            return 0
        held = matrix.vectors.nbytes + sum(rows.nbytes for rows in matrix.rows.values())
        print(
            f"sentence matrix: {len(matrix.vectors):,} sentences of {len(matrix.chunk_ids):,} chunks, "
            f"{held / 2**20:.1f} MiB, loaded in {load_s:.2f} s ({load_cpu:.2f} s CPU); top {TOP_SENTENCES} per chunk"
        )
        for ws in (blended, plain):
            for question in questions:
                ws.components.query_context.embed_query(question)  # model time stays out of every figure
        dense_step(blended, plain, questions)
        sentence_scores(env, questions, rerank_pools(blended, questions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
