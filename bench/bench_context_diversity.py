"""Diversity in what fills the context budget: `rerank` with its k passages chosen by maximal marginal
relevance (the ``diversity`` penalty of ``[retrieval.pipelines.rerank]``,
:mod:`kgrag.retrieval.steps.diversity`) against the shipped `rerank`, on a labelled question set.

Per question, the shipped `rerank` runs through the workspace (the baseline, timed), and the diversity
pipeline's steps up to its `diversify` step run once; the rest (`diversify`, hydrate, fit the budget) then
runs once per penalty of the grid on a copy of that state, so every penalty sees the same reranked pool.
Penalty 0 must hand over exactly what `rerank` does: the bench counts the questions where it does not.
One penalty (``--time``) also runs as a whole pipeline, timed, for the CPU per query (the baseline and it
alternate which runs first, so neither always finds the query's vector cached).

With ``--folds``, the penalty is chosen by cross-validation: on all folds but one of
`kgrag.tuning.evidence_folds` (questions with the same main evidence passage share a fold), the grid
penalty with the highest mean evidence recall (ties: the smaller), applied to the held-out fold. With
``--penalty``, one fixed penalty is reported (a penalty chosen on another dataset). Prints evidence recall
per question type with 95% t intervals and the paired difference to `rerank` (`kgrag.evaluation.stats`),
the context tokens and the CPU ms per query. Rows are cached as JSON lines (``--cache``).

    HF_HUB_OFFLINE=1 KGRAG_EMBEDDING__THREADS=1 nice -n 10 .venv/bin/python bench/bench_context_diversity.py \
        --workspace WS --dataset questions.json --cache rows.jsonl (--folds 5 | --penalty 0.2) [--sample 300]
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgrag import Workspace
from kgrag.config import KgragConfig
from kgrag.evaluation import load_dataset
from kgrag.evaluation.ceiling import ChunkWords
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample
from kgrag.evaluation.stats.intervals import t_estimate
from kgrag.retrieval.pipeline_settings import RerankSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.recipes.rerank import rerank_pipeline
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.diversity import Diversify
from kgrag.tuning.evidence_folds import evidence_folds
from recall_cells import cell

GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
Row = dict[str, object]


def with_penalty(config: KgragConfig, penalty: float) -> KgragConfig:
    """``config`` with ``[retrieval.pipelines.rerank] diversity = penalty`` (its other rerank keys kept)."""
    out = config.model_copy(deep=True)
    old = out.retrieval.pipelines.get("rerank")
    base = old.model_dump() if old is not None else {}
    out.retrieval.pipelines["rerank"] = RerankSettings(**{**base, "diversity": penalty})
    return out


def _outcome(item: QAItem, items: Sequence, tokens: int | None, overlap: float) -> dict[str, object]:
    texts = [i.text for i in items]
    return {
        "recall": evidence_recall(item.evidence, texts, overlap) or 0.0,
        "tokens": tokens or 0,
        "ids": [f"{i.kind}:{i.id}:{len(i.text)}" for i in items],
    }


def _tail(pipeline: Pipeline, state: QueryState, ctx: QueryContext, penalty: float) -> QueryState:
    """The steps from `diversify` on, with ``penalty``, on a copy of ``state``."""
    run = copy.deepcopy(state)
    cut = next(i for i, step in enumerate(pipeline.steps) if step.name == "diversify")
    for step in (Diversify(penalty), *pipeline.steps[cut + 1 :]):
        step.run(run, ctx)
    return run


def run_question(ws: Workspace, item: QAItem, grid: Sequence[float], timed: Pipeline, n: int) -> Row:
    ctx = ws.components.query_context
    k, overlap = ws.config.retrieval.k, ws.config.evaluation.evidence_overlap
    state = QueryState(query=item.question, k=k, queries=[item.question], pipeline="rerank")
    for step in timed.before("diversify").steps:  # also embeds the question: both timed runs find it cached
        step.run(state, ctx)
    row: Row = {"id": item.id, "type": item.question_type, "cpu": {}}
    for which in ("rerank", "timed") if n % 2 == 0 else ("timed", "rerank"):
        started = time.process_time()
        result = ws.retrieve(item.question, "rerank") if which == "rerank" else timed.run(item.question, ctx, k)
        row["cpu"][which] = time.process_time() - started  # type: ignore[index]
        row[which] = _outcome(item, result.items, result.context_tokens, overlap)
    for penalty in grid:
        done = _tail(timed, state, ctx, penalty)
        row[f"p{penalty:g}"] = _outcome(item, done.items, done.context_tokens, overlap)
    return row


def collect(ws_path: Path, items: list[QAItem], grid: Sequence[float], time_penalty: float, cache: Path) -> list[Row]:
    have: dict[str, Row] = {}
    if cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            have[row["id"]] = row
    todo = [i for i in items if i.id not in have]
    if todo:
        with Workspace.open(ws_path) as ws, cache.open("a", encoding="utf-8") as out:
            timed = rerank_pipeline("rerank", with_penalty(ws.config, time_penalty))
            for n, item in enumerate(todo):
                row = run_question(ws, item, grid, timed, n)
                out.write(json.dumps(row) + "\n")
                have[item.id] = row
                if (n + 1) % 100 == 0:
                    print(f"  {n + 1}/{len(todo)} questions run", flush=True)
    return [have[i.id] for i in items]


def recall(row: Row, key: str) -> float:
    return float(row[key]["recall"])  # type: ignore[index]


def choose(rows: Sequence[Row], grid: Sequence[float]) -> float:
    """The grid penalty with the highest mean recall on ``rows`` (ties: the smaller)."""
    means = [np.mean([recall(r, f"p{p:g}") for r in rows]) for p in grid]
    return grid[int(np.argmax(means))]


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=None, help="a stratified seeded sample of this size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folds", type=int, default=None, help="choose the penalty by this many evidence folds")
    parser.add_argument("--penalty", type=float, default=None, help="report this fixed penalty (from the grid)")
    parser.add_argument("--time", type=float, default=0.2, help="the penalty run whole and timed")
    args = parser.parse_args()
    items = [i for i in load_dataset(args.dataset) if i.evidence]
    if args.sample:
        items = stratified_sample(items, args.sample, args.seed)
    grid = sorted({*GRID, *([args.penalty] if args.penalty is not None else []), args.time})
    rows = collect(args.workspace, items, grid, args.time, args.cache)
    same = sum(r["p0"]["ids"] == r["rerank"]["ids"] for r in rows)  # type: ignore[index]
    timed_same = sum(r["timed"]["ids"] == r[f"p{args.time:g}"]["ids"] for r in rows)  # type: ignore[index]
    print(
        f"{len(rows)} questions; penalty 0 hands over exactly rerank's context on {same}; the timed "
        f"pipeline matches the bench's penalty {args.time:g} on {timed_same}"
    )
    picks: dict[str, list[str]] = {"rerank": ["rerank"] * len(rows)}
    picks |= {f"penalty {p:g}": [f"p{p:g}"] * len(rows) for p in grid if p > 0}
    if args.folds:
        with Workspace.open(args.workspace) as ws:
            chunks = ChunkWords(c.text for c in ws.store.chunks.iter_all())
            threshold = ws.config.evaluation.evidence_overlap
        split = evidence_folds(items, chunks, args.folds, args.seed, threshold)
        print(f"{args.folds} folds by main evidence passage: {split.groups} groups, largest {split.largest_group}")
        chosen = {
            f: choose([r for r, g in zip(rows, split.fold, strict=True) if g != f], grid) for f in set(split.fold)
        }
        print("penalty chosen per held-out fold: " + ", ".join(f"{chosen[f]:g}" for f in sorted(chosen)))
        print(f"penalty chosen on all questions: {choose(rows, grid):g}")
        picks["CV (held out)"] = [f"p{chosen[g]:g}" for g in split.fold]
    report(rows, picks)
    cpu = {key: np.array([1000 * float(r["cpu"][key]) for r in rows]) for key in ("rerank", "timed")}  # type: ignore[index]
    extra = t_estimate(cpu["timed"] - cpu["rerank"], 0.95)
    low, high = extra.ci95 or (float("nan"), float("nan"))
    print(
        f"framework CPU ms per query (question vector cached): rerank {cpu['rerank'].mean():.2f}, "
        f"diversity {args.time:g} {cpu['timed'].mean():.2f}, "
        f"paired difference {extra.mean:+.2f} [{low:+.2f}, {high:+.2f}]"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
