"""Diversity in what fills the context budget: `rerank` with its k passages chosen from the reranked pool by
greedy maximal marginal relevance (carbonell-goldstein-1998), against the shipped `rerank`.

`rerank` hands the budget its reranker's top k passages; neighbouring chunks of one document share the
chunking overlap and top passages can restate each other, so a less redundant passage might recall more
evidence in the same tokens. Each next passage here maximises

    relevance − penalty × (its largest similarity to the passages already chosen)

with relevance the reranker's score rescaled to [0, 1] over the pool of 50 and similarity one of:
``both`` (the stored chunk vectors' cosine, and 1 for chunks of one document with adjacent ordinals: the
design measured first), ``cosine`` (the cosine alone) and ``adjacent`` (1 for adjacent chunks, else 0).
The first passage is always the reranker's best; penalty 0 is `rerank` exactly. Nothing here is a shipped
pipeline: the step was measured and dropped (docs/results/context-diversity.md).

Per question, the shipped `rerank` runs through the workspace (the baseline); its steps up to `rerank` run
once, the pool of 50 is reranked whole, and the choice and the finishing steps (hydrate, fit the budget,
excerpts) run once per similarity and penalty on a copy of that state. The bench counts the questions
where penalty 0 does not hand over exactly `rerank`'s context. One setting (``--time``) also runs as a
whole pipeline beside `rerank`, both with the question's vector cached, alternating which runs first:
the framework CPU per query.

With ``--folds``, the penalty of each similarity is chosen by cross-validation: on all folds but one of
`kgrag.tuning.evidence_folds` (questions with the same main evidence passage share a fold), the grid
penalty with the highest mean evidence recall (ties: the smaller), applied to the held-out fold. Prints
evidence recall per question type with 95% t intervals and the paired difference to `rerank`
(`kgrag.evaluation.stats`), and the context tokens. Rows are cached as JSON lines (``--cache``).

    HF_HUB_OFFLINE=1 KGRAG_EMBEDDING__THREADS=1 nice -n 10 .venv/bin/python bench/bench_context_diversity.py \
        --workspace WS --dataset questions.json --cache rows.jsonl [--folds 5] [--sample 300] [--time both:0.1]
"""

from __future__ import annotations

import argparse
import copy
import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kgrag import Workspace
from kgrag.core.context import ContextItem
from kgrag.documents.words import content_words
from kgrag.evaluation import load_dataset
from kgrag.evaluation.ceiling import ChunkWords
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample
from kgrag.evaluation.stats.intervals import t_estimate
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.reranker import RERANKER
from kgrag.retrieval.steps.basic import QueryState
from kgrag.tuning.evidence_folds import evidence_folds
from recall_cells import cell
from row_cache import append_rows, cached_rows

GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
SIMILARITIES = ("both", "cosine", "adjacent")
Row = dict[str, object]


def relevance(items: Sequence[ContextItem]) -> np.ndarray:
    """Each passage's reranker score rescaled to [0, 1] over ``items`` (all equal: all 1)."""
    raw = np.array([float(item.scores.get("rerank", 0.0)) for item in items])
    span = raw.max() - raw.min() if len(raw) else 0.0
    return (raw - raw.min()) / span if span > 0 else np.ones(len(raw))


def similarity_rows(items: Sequence[ContextItem], env: QueryContext, kind: str) -> Callable[[int], np.ndarray]:
    """``row(i)``: the similarity of every passage to passage ``i``, by ``kind``: ``cosine`` (of the stored
    chunk vectors, 0 where one has none), ``adjacent`` (1 for a neighbour chunk of the same document: their
    text overlaps) or ``both`` (the larger). Rows, not a matrix: MMR needs only the k chosen passages' rows,
    and one matrix-vector product each stays on one thread where a pool-by-pool product would start BLAS's."""
    docs = np.array([str(item.doc_id) for item in items])
    ords = np.array(
        [o if isinstance(o := item.metadata.get("ord"), int) else -10 * (i + 2) for i, item in enumerate(items)]
    )
    stored = env.store.vectors.chunk_vectors(env.model_id, [item.id for item in items]) if kind != "adjacent" else {}
    width = len(next(iter(stored.values()))) if stored else 0
    matrix = (
        np.stack([np.asarray(stored.get(item.id, np.zeros(width)), dtype=float) for item in items]) if stored else None
    )
    if matrix is not None:
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)

    def row(i: int) -> np.ndarray:
        cosine = matrix @ matrix[i] if matrix is not None else np.zeros(len(items))
        if kind == "cosine":
            return cosine
        adjacent = ((docs == docs[i]) & (np.abs(ords - ords[i]) == 1)).astype(float)
        return adjacent if kind == "adjacent" else np.maximum(cosine, adjacent)

    return row


def mmr_order(rel: np.ndarray, row: Callable[[int], np.ndarray], penalty: float, k: int) -> list[int]:
    """Indices of the ``k`` passages greedy MMR chooses, in the order chosen (ties: the earlier one)."""
    chosen: list[int] = []
    closest = np.zeros(len(rel))  # each passage's largest similarity to the chosen ones (none chosen: 0)
    free = np.ones(len(rel), dtype=bool)
    while len(chosen) < min(k, len(rel)):
        gain = rel - penalty * closest
        pick = int(np.flatnonzero(free)[np.argmax(gain[free])])
        chosen.append(pick)
        free[pick] = False
        similar = row(pick)
        closest = similar if len(chosen) == 1 else np.maximum(closest, similar)
    return chosen


@dataclass(frozen=True)
class RerankPool:
    """The workspace's reranker over the whole pool (``Rerank`` cuts to k; MMR chooses the k here)."""

    name: str = "rerank_pool"

    def run(self, state: QueryState, env: QueryContext) -> None:
        reranker = env.get(RERANKER)
        passages = [item for item in state.items if item.kind == "chunk"]
        state.items = reranker.rerank(state.query, passages, len(passages))


@dataclass(frozen=True)
class Diversify:
    """Keep the ``k`` passages greedy MMR chooses with ``similarity`` and ``penalty``, in that order."""

    similarity: str
    penalty: float
    name: str = "diversify"

    def run(self, state: QueryState, env: QueryContext) -> None:
        row = similarity_rows(state.items, env, self.similarity)
        state.items = [state.items[i] for i in mmr_order(relevance(state.items), row, self.penalty, state.k)]


def _outcome(item: QAItem, items: Sequence[ContextItem], tokens: int | None, overlap: float) -> dict[str, object]:
    texts = [i.text for i in items]
    ids = [f"{i.kind}:{i.id}:{len(i.text)}" for i in items]
    return {"recall": evidence_recall(item.evidence, texts, overlap) or 0.0, "tokens": tokens or 0, "ids": ids}


def run_question(ws: Workspace, item: QAItem, rerank: Pipeline, timed: tuple[str, float], n: int) -> Row:
    ctx = ws.components.query_context
    k, overlap = ws.config.retrieval.k, ws.config.evaluation.evidence_overlap
    cut = next(i for i, step in enumerate(rerank.steps) if step.name == "rerank")
    head, tail = (*rerank.steps[:cut], RerankPool()), rerank.steps[cut + 1 :]
    state = QueryState(query=item.question, k=k, queries=[item.question], pipeline="rerank")
    for step in head:  # also embeds the question: both timed runs below find its vector cached
        step.run(state, ctx)
    whole = Pipeline("rerank", "rerank, k chosen by MMR", (*head, Diversify(*timed), *tail))
    row: Row = {"id": item.id, "type": item.question_type, "cpu": {}}
    for which in ("rerank", "timed") if n % 2 == 0 else ("timed", "rerank"):
        started = time.process_time()
        result = ws.retrieve(item.question, "rerank") if which == "rerank" else whole.run(item.question, ctx, k)
        row["cpu"][which] = time.process_time() - started  # type: ignore[index]
        row[which] = _outcome(item, result.items, result.context_tokens, overlap)
    rows = {kind: functools.cache(similarity_rows(state.items, ctx, kind)) for kind in SIMILARITIES}
    rel = relevance(state.items)
    for similarity in SIMILARITIES:
        for penalty in GRID:
            run = copy.deepcopy(state)
            run.items = [run.items[i] for i in mmr_order(rel, rows[similarity], penalty, k)]
            for step in tail:
                step.run(run, ctx)
            row[f"{similarity}:{penalty:g}"] = _outcome(item, run.items, run.context_tokens, overlap)
    return row


def collect(ws_path: Path, items: list[QAItem], timed: tuple[str, float], cache: Path) -> list[Row]:
    have: dict[str, Row] = cached_rows(cache)
    todo = [i for i in items if i.id not in have]
    if todo:
        with Workspace.open(ws_path) as ws, cache.open("a", encoding="utf-8") as out:
            rerank = ws.querying.pipeline("rerank")
            append_rows(todo, lambda n, item: run_question(ws, item, rerank, timed, n), out, have)
    return [have[i.id] for i in items]


def recall(row: Row, key: str) -> float:
    return float(row[key]["recall"])  # type: ignore[index]


def choose(rows: Sequence[Row], similarity: str) -> float:
    """The grid penalty with the highest mean recall on ``rows`` (ties: the smaller)."""
    means = [np.mean([recall(r, f"{similarity}:{p:g}") for r in rows]) for p in GRID]
    return GRID[int(np.argmax(means))]


def report(rows: list[Row], picks: dict[str, list[str]]) -> None:
    """One line per variant: recall per type with the paired difference to `rerank`, context tokens."""
    types = sorted({str(r["type"]) for r in rows})
    groups = {t: [i for i, r in enumerate(rows) if r["type"] == t] for t in types} | {"All": list(range(len(rows)))}
    print("| variant | " + " | ".join(f"{t} (n={len(g)})" for t, g in groups.items()) + " | context tokens |")
    print("|---|" + "---:|" * (len(groups) + 1))
    for name, keys in picks.items():
        cells = []
        for members in groups.values():
            got = [recall(rows[i], keys[i]) for i in members]
            diff = [g - recall(rows[i], "rerank") for g, i in zip(got, members, strict=True)]
            cells.append(cell(got) if name == "rerank" else f"{cell(got)}<br>Δ {cell(diff, signed=True)}")
        tokens = np.mean([float(r[key]["tokens"]) for r, key in zip(rows, keys, strict=True)])  # type: ignore[index]
        print(f"| {name} | " + " | ".join(cells) + f" | {tokens:.0f} |")


def cross_validated(rows: list[Row], items: list[QAItem], ws_path: Path, folds: int, seed: int) -> dict[str, list[str]]:
    """Each similarity's held-out choice per question (penalty fitted on the other evidence folds)."""
    with Workspace.open(ws_path) as ws:
        chunks = ChunkWords(c.text for c in ws.store.chunks.iter_all())
        threshold = ws.config.evaluation.evidence_overlap
    split = evidence_folds(items, chunks, folds, seed, threshold)
    print(f"{folds} folds by main evidence passage: {split.groups} groups, largest {split.largest_group}")
    picks = {}
    for similarity in SIMILARITIES:
        chosen = {
            f: choose([r for r, g in zip(rows, split.fold, strict=True) if g != f], similarity) for f in set(split.fold)
        }
        print(
            f"{similarity}: penalty chosen per held-out fold "
            + ", ".join(f"{chosen[f]:g}" for f in sorted(chosen))
            + f"; on all questions {choose(rows, similarity):g}"
        )
        picks[f"{similarity}, CV (held out)"] = [f"{similarity}:{chosen[g]:g}" for g in split.fold]
    return picks


def redundancy(rows: list[Row], items: list[QAItem], ws_path: Path) -> None:
    """How redundant `rerank`'s passages are: neighbour pairs among them (how many of those pairs both hold
    evidence sentences, and how many each hold one the other does not: the neighbour adds evidence), and
    their largest pairwise cosine."""
    with Workspace.open(ws_path) as ws:
        chunks = list(ws.store.chunks.iter_all())
        where = {c.id: (c.doc_id, c.ord) for c in chunks}
        words = ChunkWords(c.text for c in chunks)
        threshold = ws.config.evaluation.evidence_overlap
        model = ws.components.query_context.model_id
        with_pair = pairs = both = adds = 0
        max_cos = []
        for row, item in zip(rows, items, strict=True):
            ids = list(dict.fromkeys(key.split(":")[1] for key in row["rerank"]["ids"]))  # type: ignore[index]
            held = [{chunks[i].id for i in words.holding(w, threshold)} for w in map(content_words, item.evidence) if w]
            found = [(a, b) for n, a in enumerate(ids) for b in ids[n + 1 :] if _neighbours(where, a, b)]
            with_pair += bool(found)
            pairs += len(found)
            for a, b in found:
                in_a, in_b = {n for n, h in enumerate(held) if a in h}, {n for n, h in enumerate(held) if b in h}
                both += bool(in_a and in_b)
                adds += bool(in_a - in_b and in_b - in_a)
            vectors = ws.store.vectors.chunk_vectors(model, ids)
            matrix = np.stack([vectors[i] / np.linalg.norm(vectors[i]) for i in ids if i in vectors])
            if len(matrix) > 1:
                max_cos.append(float(np.max((matrix @ matrix.T)[np.triu_indices(len(matrix), 1)])))
    print(
        f"rerank's passages: {with_pair} of {len(rows)} questions hold a neighbour pair ({pairs} pairs; {both} "
        f"pairs both hold evidence sentences, {adds} each hold one the other does not); their largest pairwise cosine "
        f"averages {np.mean(max_cos):.3f}"
    )


def _neighbours(where: dict[str, tuple[str, int]], a: str, b: str) -> bool:
    return a in where and b in where and where[a][0] == where[b][0] and abs(where[a][1] - where[b][1]) == 1


def print_cpu(rows: list[Row], timed: str) -> None:
    cpu = {key: np.array([1000 * float(r["cpu"][key]) for r in rows]) for key in ("rerank", "timed")}  # type: ignore[index]
    extra = t_estimate(cpu["timed"] - cpu["rerank"], 0.95)
    low, high = extra.ci95 or (float("nan"), float("nan"))
    print(
        f"framework CPU ms per query (question vector cached): rerank {cpu['rerank'].mean():.2f} "
        f"(median {np.median(cpu['rerank']):.2f}), {timed} {cpu['timed'].mean():.2f} (median "
        f"{np.median(cpu['timed']):.2f}), paired difference {extra.mean:+.2f} [{low:+.2f}, {high:+.2f}]"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=None, help="a stratified seeded sample of this size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folds", type=int, default=None, help="choose each penalty by this many evidence folds")
    parser.add_argument("--time", default="both:0.1", help="the similarity:penalty run whole and timed")
    args = parser.parse_args()
    items = [i for i in load_dataset(args.dataset) if i.evidence]
    if args.sample:
        items = stratified_sample(items, args.sample, args.seed)
    similarity, penalty = args.time.split(":")
    rows = collect(args.workspace, items, (similarity, float(penalty)), args.cache)
    same = sum(r["both:0"]["ids"] == r["rerank"]["ids"] for r in rows)  # type: ignore[index]
    timed_same = sum(r["timed"]["ids"] == r[args.time]["ids"] for r in rows)  # type: ignore[index]
    print(
        f"{len(rows)} questions; penalty 0 hands over exactly rerank's context on {same}; "
        f"the whole {args.time} pipeline matches the bench's on {timed_same}"
    )
    picks: dict[str, list[str]] = {"rerank": ["rerank"] * len(rows)}
    for sim in SIMILARITIES:
        picks |= {f"{sim} {p:g}": [f"{sim}:{p:g}"] * len(rows) for p in GRID if p > 0}
    grid_keys = [f"{sim}:{p:g}" for sim in SIMILARITIES for p in GRID]
    picks["oracle: best of the grid per question (not a rule)"] = [
        max(grid_keys, key=lambda k, r=r: recall(r, k)) for r in rows
    ]
    if args.folds:
        picks |= cross_validated(rows, items, args.workspace, args.folds, args.seed)
    report(rows, picks)
    for sim in SIMILARITIES:
        moved = [[recall(r, f"{sim}:{p:g}") - recall(r, "rerank") for r in rows] for p in GRID if p > 0]
        counts = [
            f"{p:g} {sum(d > 0 for d in m)}/{sum(d < 0 for d in m)}" for p, m in zip(GRID[1:], moved, strict=True)
        ]
        print(f"{sim}: questions up/down against rerank per penalty: " + ", ".join(counts))
    redundancy(rows, items, args.workspace)
    print_cpu(rows, args.time)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
