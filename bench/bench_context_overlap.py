"""Neighbour passages handed over without their shared overlap, against the same pipeline handing both whole.

Consecutive chunks of a document repeat the chunking overlap. When a context holds both, the budget step
of ``overlap_step.py`` (carried there for the record: measured and not kept, docs/results/context-overlap.md)
hands the later-chosen one over without the text the context already holds, found by the stored chunk
offsets, and the freed tokens go to the next passages and excerpts: ``cut`` as its own item cut to the
rest of its chunk, ``merge`` joined to its neighbour in one item (their union, both chunk ids). ``off`` is
the shipped pipeline. Per question and pipeline (``--pipelines``, default `rerank` and `hybrid`) the three
run whole in the same process, in a rotating order, with the question's vector cached (the framework CPU
per query, process time).

Evidence recall is counted as ``kgrag eval retrieval`` counts it: a sentence is recalled when one item
holds enough of its content words. A cut passage is a slice of its chunk, so it can only hold less than
the whole chunk did; a merged item holds more than either chunk. To tell a gain from the freed tokens
apart from a gain from larger items, each context is scored three ways: ``items`` (as handed over),
``merged`` (besides, the chunk items of one document with consecutive chunk numbers joined into one item:
a sentence whose words straddle a neighbour pair's boundary can then count) and ``whole`` (the same
selection split back into one item per chunk, each with its full chunk text: what it would recall as
today's whole items). Prints recall per question type with 95% t intervals and the paired difference to
``off`` scored by items (`kgrag.evaluation.stats`), the tokens handed over (the items' text, in the
chunking encoding) and the budget's own count (labels included), the cuts and joins made, and the CPU.

    HF_HUB_OFFLINE=1 KGRAG_EMBEDDING__PROVIDERS__ONNX__THREADS=1 nice -n 10 .venv/bin/python \
        bench/bench_context_overlap.py --workspace WS --dataset questions.json --cache rows.jsonl [--sample 300]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgrag import Workspace
from kgrag.core.context import ContextItem
from kgrag.documents import TokenCounter
from kgrag.evaluation import load_dataset
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample
from kgrag.evaluation.stats.intervals import t_estimate
from kgrag.retrieval.pipelines import Pipeline
from overlap_step import with_overlap
from recall_cells import cell
from row_cache import append_rows, cached_rows

VARIANTS = ("off", "cut", "merge")
SCORINGS = ("items", "merged", "whole")
Row = dict[str, object]


def merged_texts(items: Sequence[ContextItem], where: dict[str, tuple[str, int]]) -> list[str]:
    """The items' texts with the passages of one document whose chunks are consecutive (``where``: each
    chunk's document and number) joined, in document order, into one text; excerpts and facts as they are."""
    runs: list[tuple[str, int, int, str]] = []
    rest: list[str] = []
    for item in items:
        places = [where[c] for c in item.chunk_ids if c in where]
        if item.kind != "chunk" or item.metadata.get("excerpt") or not places:
            rest.append(item.text)
            continue
        ords = [o for _, o in places]
        runs.append((places[0][0], min(ords), max(ords), item.text))
    joined: list[tuple[str, int, str]] = []
    for doc, low, high, text in sorted(runs):
        if joined and joined[-1][0] == doc and low <= joined[-1][1] + 1:
            joined[-1] = (doc, max(high, joined[-1][1]), joined[-1][2] + " " + text)
        else:
            joined.append((doc, high, text))
    return [text for _, _, text in joined] + rest


def whole_texts(items: Sequence[ContextItem], chunk_text: dict[str, str]) -> list[str]:
    """The items split back into one item per chunk: every cut or joined chunk item replaced by the full
    texts of its chunks (excerpts and facts as they are)."""
    texts: list[str] = []
    for i in items:
        changed = _changed(i)
        texts += [chunk_text.get(c, i.text) for c in i.chunk_ids] if changed else [i.text]
    return texts


def _changed(item: ContextItem) -> bool:
    """A passage cut or joined by the step (an excerpt of a cut passage keeps its metadata but is not one)."""
    return not item.metadata.get("excerpt") and ("chunk_span" in item.metadata or bool(item.metadata.get("merged")))


def neighbour_pairs(items: Sequence[ContextItem]) -> int:
    where = {
        (i.doc_id, o) for i in items if i.kind == "chunk" and isinstance(o := i.metadata.get("ord"), int) and i.doc_id
    }
    return sum((doc, o + 1) in where for doc, o in where)


def outcome(
    item: QAItem, items: Sequence[ContextItem], budget: int | None, chunk_text: dict[str, str], env: Row
) -> Row:
    overlap, count = float(env["overlap"]), env["count"]  # type: ignore[arg-type]
    texts = {
        "items": [i.text for i in items],
        "merged": merged_texts(items, env["where"]),  # type: ignore[arg-type]
        "whole": whole_texts(items, chunk_text),
    }
    cut = [i for i in items if _changed(i) and not i.metadata.get("merged")]
    joined = [i for i in items if i.metadata.get("merged")]
    return {
        **{f"recall_{k}": evidence_recall(item.evidence, v, overlap) or 0.0 for k, v in texts.items()},
        "tokens": sum(count.count(i.text) for i in items),  # type: ignore[attr-defined]
        "budget_tokens": budget or 0,
        "items": len(items),
        "excerpts": sum(bool(i.metadata.get("excerpt")) for i in items),
        "cut": len(cut),
        "cut_tokens": sum(count.count(chunk_text[i.id]) - count.count(i.text) for i in cut),  # type: ignore[attr-defined]
        "joined": sum(len(i.chunk_ids) - 1 for i in joined),
        "joined_tokens": sum(  # the chunks' own tokens (labels apart) less their union's
            sum(count.count(chunk_text[c]) for c in i.chunk_ids) - count.count(i.text)  # type: ignore[attr-defined]
            for i in joined
        ),
        "pairs": neighbour_pairs(items),
        "ids": [f"{i.kind}:{i.id}:{len(i.text)}" for i in items],
    }


def run_question(ws: Workspace, item: QAItem, pipelines: dict[str, dict[str, Pipeline]], n: int, env: Row) -> Row:
    ctx = ws.components.query_context
    k = ws.config.retrieval.k
    ctx.embed_query(item.question)  # cached: no timed run pays for the embedder
    row: Row = {"id": item.id, "type": item.question_type}
    chunk_text: dict[str, str] = env["chunk_text"]  # type: ignore[assignment]
    for name, variants in pipelines.items():
        for variant in VARIANTS[n % 3 :] + VARIANTS[: n % 3]:
            started = time.process_time()
            result = variants[variant].run(item.question, ctx, k)
            cpu = time.process_time() - started
            row[f"{name}:{variant}"] = outcome(item, result.items, result.context_tokens, chunk_text, env) | {
                "cpu": cpu
            }
    return row


def collect(ws_path: Path, items: list[QAItem], names: Sequence[str], cache: Path) -> list[Row]:
    have: dict[str, Row] = cached_rows(cache)
    todo = [i for i in items if i.id not in have]
    if todo:
        with Workspace.open(ws_path) as ws, cache.open("a", encoding="utf-8") as out:
            chunks = list(ws.store.chunks.iter_all())
            env: Row = {
                "overlap": ws.config.evaluation.evidence_overlap,
                "count": TokenCounter.for_encoding(ws.config.chunking.encoding),
                "chunk_text": {c.id: c.text for c in chunks},
                "where": {c.id: (c.doc_id, c.ord) for c in chunks},
            }
            pipelines = {name: {v: with_overlap(ws.querying.pipeline(name), v) for v in VARIANTS} for name in names}
            append_rows(todo, lambda n, item: run_question(ws, item, pipelines, n, env), out, have)
    return [have[i.id] for i in items]


def value(row: Row, key: str, field: str) -> float:
    return float(row[key][field])  # type: ignore[index]


def report(rows: list[Row], name: str) -> None:
    """Recall per question type for each variant and scoring, with the paired difference to ``off``
    scored by items; what each variant cut and joined; the CPU."""
    types = sorted({str(r["type"]) for r in rows})
    groups = {t: [r for r in rows if r["type"] == t] for t in types} | {"All": rows}
    print(f"\n### `{name}`\n")
    print("| variant | " + " | ".join(f"{t} (n={len(g)})" for t, g in groups.items()) + " | tokens | budget tokens |")
    print("|---|" + "---:|" * (len(groups) + 2))
    base = f"{name}:off"
    for variant in VARIANTS:
        for scoring in SCORINGS:
            if variant == "off" and scoring == "whole":
                continue  # nothing is cut: the same as items
            key, field = f"{name}:{variant}", f"recall_{scoring}"
            cells = []
            for group in groups.values():
                got = [value(r, key, field) for r in group]
                diff = [g - value(r, base, "recall_items") for g, r in zip(got, group, strict=True)]
                first = variant == "off" and scoring == "items"
                cells.append(cell(got) if first else f"{cell(got)}<br>Δ {cell(diff, signed=True)}")
            tokens = np.mean([value(r, key, "tokens") for r in rows])
            budget = np.mean([value(r, key, "budget_tokens") for r in rows])
            print(f"| {variant}, {scoring} | " + " | ".join(cells) + f" | {tokens:.0f} | {budget:.0f} |")
    off = base
    print(
        f"\n{name}: questions with a neighbour pair (off) {sum(value(r, off, 'pairs') > 0 for r in rows)} of "
        f"{len(rows)}; items per query off {np.mean([value(r, off, 'items') for r in rows]):.2f} (excerpts "
        f"{np.mean([value(r, off, 'excerpts') for r in rows]):.2f})"
    )
    for variant in VARIANTS[1:]:
        key = f"{name}:{variant}"
        moved = [value(r, key, "recall_items") - value(r, off, "recall_items") for r in rows]
        changed = [value(r, key, "cut") + value(r, key, "joined") for r in rows]
        saved = [value(r, key, "cut_tokens") + value(r, key, "joined_tokens") for r in rows]
        print(
            f"{name}, {variant}: {np.mean([value(r, key, 'cut') for r in rows]):.2f} passages cut and "
            f"{np.mean([value(r, key, 'joined') for r in rows]):.2f} joined per query "
            f"({sum(c > 0 for c in changed)} questions), {np.mean(saved):.1f} chunk tokens not repeated per query; "
            f"items {np.mean([value(r, key, 'items') for r in rows]):.2f} (excerpts "
            f"{np.mean([value(r, key, 'excerpts') for r in rows]):.2f}); context unchanged on "
            f"{sum(r[key]['ids'] == r[off]['ids'] for r in rows)}; recall by items up on "  # type: ignore[index]
            f"{sum(d > 0 for d in moved)}, down on {sum(d < 0 for d in moved)}"
        )
        both_merged = [value(r, key, "recall_merged") - value(r, off, "recall_merged") for r in rows]
        print(f"{name}, {variant} against off, both scored merged: Δ {cell(both_merged, signed=True)} (All)")
    cpu = {v: np.array([1000 * value(r, f"{name}:{v}", "cpu") for r in rows]) for v in VARIANTS}
    line = f"{name}: framework CPU ms per query (question vector cached): off {cpu['off'].mean():.2f} "
    line += f"(median {np.median(cpu['off']):.2f})"
    for variant in VARIANTS[1:]:
        extra = t_estimate(cpu[variant] - cpu["off"], 0.95)
        low, high = extra.ci95 or (float("nan"), float("nan"))
        line += f", {variant} {cpu[variant].mean():.2f} (median {np.median(cpu[variant]):.2f}; paired difference "
        line += f"{extra.mean:+.2f} [{low:+.2f}, {high:+.2f}])"
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--pipelines", default="rerank,hybrid")
    parser.add_argument("--sample", type=int, default=None, help="a stratified seeded sample of this size")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    items = [i for i in load_dataset(args.dataset) if i.evidence]
    if args.sample:
        items = stratified_sample(items, args.sample, args.seed)
    names = args.pipelines.split(",")
    rows = collect(args.workspace, items, names, args.cache)
    print(f"{len(rows)} questions")
    for name in names:
        report(rows, name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
