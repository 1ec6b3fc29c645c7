"""Per-question choice between two pipelines' contexts by a query-time signal, on a labelled question set.

`rerank` and `graph-mix-rerank` recall the same evidence on average but not on the same questions. This
bench runs both on every question once (cached as JSON lines, so a sample's run is reused by the full one),
then applies choice rules that read only what is known at query time: the two contexts themselves (their
coverage of the question, their overlap, the reranker's scores) and the question. Rules with a cut are
cross-validated: fitted on all folds but one of `kgrag.tuning.evidence_folds` (questions with the same main
evidence passage share a fold) and applied to the held-out one. Choosing one of two finished contexts is
exactly measurable from the two pipelines' outcomes, so each rule's recall is what a pipeline running both
and keeping the chosen context would hand over. Prints recall per question type with 95% t intervals and
each rule's paired difference to `rerank` (`kgrag.evaluation.stats`), the context tokens and the CPU ms per
query.

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python bench/bench_context_pick.py --workspace WS \
        --dataset questions.json --cache pick.jsonl [--sample 300 --seed 0 | --exclude-sample 300] [--folds 5]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from kgrag import Workspace
from kgrag.documents import TokenCounter
from kgrag.documents.words import content_words
from kgrag.evaluation import load_dataset
from kgrag.evaluation.ceiling import ChunkWords
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample
from kgrag.tuning.evidence_folds import evidence_folds
from recall_cells import cell
from row_cache import append_rows, cached_rows

PIPELINES = ("rerank", "graph-mix-rerank")
Record = dict[str, object]


def run_one(ws: Workspace, item: QAItem, pipeline: str, count: TokenCounter) -> Record:
    cpu = time.process_time()
    items = ws.retrieve(item.question, pipeline).items
    cpu = time.process_time() - cpu
    texts = [i.text for i in items]
    return {
        "recall": evidence_recall(item.evidence, texts, ws.config.evaluation.evidence_overlap) or 0.0,
        "tokens": sum(count.count(t) for t in texts),
        "cpu": cpu,
        "items": [{"kind": i.kind, "id": i.id, "text": i.text, "rerank": i.scores.get("rerank")} for i in items],
    }


def collect(ws_path: Path, items: list[QAItem], cache: Path) -> dict[str, Record]:
    have: dict[str, Record] = cached_rows(cache)
    todo = [i for i in items if i.id not in have]
    if todo:
        count = TokenCounter.for_encoding()
        with Workspace.open(ws_path) as ws, cache.open("a", encoding="utf-8") as out:

            def measure(n: int, item: QAItem) -> Record:
                row: Record = {"id": item.id, "type": item.question_type, "question": item.question}
                row.update({p: run_one(ws, item, p, count) for p in PIPELINES})
                return row

            append_rows(todo, measure, out, have, every=50)
    return {i.id: have[i.id] for i in items}


def _coverage(question: str, texts: list[str]) -> float:
    wanted = content_words(question)
    if not wanted:
        return 0.0
    seen: set[str] = set()
    for text in texts:
        seen |= content_words(text) & wanted
    return len(seen) / len(wanted)


def _texts(record: object, kinds: tuple[str, ...] | None = None) -> list[str]:
    items = record["items"]  # type: ignore[index]
    return [i["text"] for i in items if kinds is None or i["kind"] in kinds]


def _ids(record: object) -> set[str]:
    return {i["id"] for i in record["items"] if i["kind"] == "chunk"}  # type: ignore[index]


def _by(signal: Callable[[str, object], float]) -> Callable[[Record], str]:
    """Keep `graph-mix-rerank`'s context when its signal is strictly higher; ties keep `rerank`."""

    def rule(row: Record) -> str:
        q = str(row["question"])
        return PIPELINES[1] if signal(q, row[PIPELINES[1]]) > signal(q, row[PIPELINES[0]]) else PIPELINES[0]

    return rule


def _scores(record: object) -> list[float]:
    return [float(i["rerank"] or 0.0) for i in record["items"] if i["kind"] == "chunk"]  # type: ignore[index]


def rerank_margin(row: Record) -> float:
    """How far `rerank`'s top passage is ahead of its second, in reranker score (small: the reranker is unsure)."""
    scores = _scores(row["rerank"])
    return scores[0] - scores[1] if len(scores) > 1 else 1.0


def graph_lead(row: Record) -> float:
    """How far the graph pool's top reranked passage is ahead of the hybrid pool's (same reranker)."""
    a, b = _scores(row["rerank"]), _scores(row["graph-mix-rerank"])
    return (b[0] if b else 0.0) - (a[0] if a else 0.0)


def fit_threshold(rows: list[Record], signal: Callable[[Record], float], below: bool) -> float:
    """The cut of ``signal`` (one of its quantiles) past which taking `graph-mix-rerank` recalls most on ``rows``."""
    values = np.array([signal(r) for r in rows])
    gain = np.array([float(r["graph-mix-rerank"]["recall"]) - float(r["rerank"]["recall"]) for r in rows])  # type: ignore[index]
    best, best_gain = (-np.inf if below else np.inf), 0.0
    for cut in np.unique(np.quantile(values, np.linspace(0.05, 0.95, 19))):
        total = gain[values < cut].sum() if below else gain[values > cut].sum()
        if total > best_gain:
            best, best_gain = float(cut), float(total)
    return best


def cross_validated(rows: list[Record], folds: list[int], signal: Callable[[Record], float], below: bool) -> list[str]:
    """Each row's choice by a threshold fitted on the other folds (`rerank` when no cut gains there)."""
    cuts = {}
    for f in set(folds):
        cuts[f] = fit_threshold([r for r, g in zip(rows, folds, strict=True) if g != f], signal, below)
    chosen = []
    for row, fold in zip(rows, folds, strict=True):
        value, cut = signal(row), cuts[fold]
        chosen.append(PIPELINES[1] if (value < cut if below else value > cut) else PIPELINES[0])
    print(f"  {signal.__name__} cuts per fold: " + ", ".join(f"{cuts[f]:+.4f}" for f in sorted(cuts)))
    return chosen


def _disagree_coverage(row: Record) -> str:
    """Only where the two contexts share under half their passages, keep the one covering more question words."""
    a, b = _ids(row["rerank"]), _ids(row["graph-mix-rerank"])
    if a and len(a & b) / len(a | b) >= 0.5:
        return PIPELINES[0]
    return _by(lambda q, r: _coverage(q, _texts(r)))(row)


RULES: dict[str, Callable[[Record], str]] = {
    "rerank": lambda row: PIPELINES[0],
    "graph-mix-rerank": lambda row: PIPELINES[1],
    "oracle (not a rule)": lambda row: max(PIPELINES, key=lambda p: (row[p]["recall"], p == "rerank")),  # type: ignore[index]
    "cover: all context": _by(lambda q, r: _coverage(q, _texts(r))),
    "cover: passages only": _by(lambda q, r: _coverage(q, _texts(r, ("chunk",)))),
    "cover: top passage": _by(lambda q, r: _coverage(q, _texts(r, ("chunk",))[:1])),
    "cover: disagreeing only": _disagree_coverage,
}


def report(rows: list[Record], fitted: dict[str, list[str]]) -> None:
    types = sorted({str(r["type"]) for r in rows})
    groups = {t: [r for r in rows if r["type"] == t] for t in types} | {"All": rows}
    print("| rule | " + " | ".join(f"{t} (n={len(g)})" for t, g in groups.items()) + " | tokens | graph chosen |")
    print("|---|" + "---:|" * (len(groups) + 2))
    choices = {name: [rule(r) for r in rows] for name, rule in RULES.items()} | fitted
    for name, chosen_all in choices.items():
        cells = []
        pick = {str(r["id"]): c for r, c in zip(rows, chosen_all, strict=True)}
        for group in groups.values():
            picked = [float(r[pick[str(r["id"])]]["recall"]) for r in group]  # type: ignore[index]
            base = [float(r["rerank"]["recall"]) for r in group]  # type: ignore[index]
            diff = [x - y for x, y in zip(picked, base, strict=True)]
            cells.append(f"{cell(picked)}<br>Δ {cell(diff, signed=True)}")
        tokens = np.mean([float(r[c]["tokens"]) for r, c in zip(rows, chosen_all, strict=True)])  # type: ignore[index]
        n_graph = sum(c == PIPELINES[1] for c in chosen_all)
        print(f"| {name} | " + " | ".join(cells) + f" | {tokens:.0f} | {n_graph} |")
    cpu = defaultdict(list)
    for r in rows:
        for p in PIPELINES:
            cpu[p].append(float(r[p]["cpu"]))  # type: ignore[index]
    print("CPU ms per query: " + ", ".join(f"{p} {1000 * np.mean(v):.0f}" for p, v in cpu.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=None, help="a stratified seeded sample of this size")
    parser.add_argument("--exclude-sample", type=int, default=None, help="every question except that sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    items = [i for i in load_dataset(args.dataset) if i.evidence]
    if args.sample:
        items = stratified_sample(items, args.sample, args.seed)
    elif args.exclude_sample:
        drop = {i.id for i in stratified_sample(items, args.exclude_sample, args.seed)}
        items = [i for i in items if i.id not in drop]
    rows = list(collect(args.workspace, items, args.cache).values())
    with Workspace.open(args.workspace) as ws:
        chunks = ChunkWords(c.text for c in ws.store.chunks.iter_all())
        threshold = ws.config.evaluation.evidence_overlap
    split = evidence_folds(items, chunks, args.folds, args.seed, threshold)
    print(f"{args.folds} folds by main evidence passage: {split.groups} groups, largest {split.largest_group}")
    fitted = {
        "CV: rerank margin < cut → graph": cross_validated(rows, split.fold, rerank_margin, below=True),
        "CV: graph lead > cut → graph": cross_validated(rows, split.fold, graph_lead, below=False),
    }
    report(rows, fitted)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
