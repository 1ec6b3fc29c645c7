"""Neighbour passages handed over without their shared overlap, against the same pipeline handing both whole.

Consecutive chunks of a document repeat the chunking overlap; when a context holds both, the budget step
(``FitBudget(overlap=True)``, :mod:`kgrag.retrieval.steps.overlap`) cuts the later-chosen one to the text
the context does not hold yet, by the stored chunk offsets, and the freed tokens go to the next passages
and excerpts. Per question and pipeline (``--pipelines``, default `rerank` and `hybrid`) both variants run
whole in the same process, alternating which runs first, with the question's vector cached (the framework
CPU per query, process time). ``off`` is the pipeline as it was before the step existed.

Evidence recall is counted as ``kgrag eval retrieval`` counts it: a sentence is recalled when one item
holds enough of its content words. A cut passage is a slice of its chunk, so per item it can only hold
less than the whole chunk did. To tell a gain from the freed tokens apart from a gain from larger items,
each context is also scored two other ways: ``merged`` (the chunk items of one document with consecutive
chunk numbers joined into one item, their union: a sentence that crosses the boundary of a neighbour pair
can then count) and ``whole`` (every chunk item scored on its full chunk text: what the same selection
would recall with today's whole items). Prints recall per question type with 95% t intervals and the
paired difference to ``off`` (`kgrag.evaluation.stats`), the tokens handed over (the items' text, in the
chunking encoding) and the budget's own count (labels included), the cuts made, and the CPU.

    HF_HUB_OFFLINE=1 KGRAG_EMBEDDING__PROVIDERS__ONNX__THREADS=1 nice -n 10 .venv/bin/python \
        bench/bench_context_overlap.py --workspace WS --dataset questions.json --cache rows.jsonl [--sample 300]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import replace
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
from kgrag.retrieval.steps.budget import FitBudget
from recall_cells import cell

VARIANTS = ("off", "on")
SCORINGS = ("items", "merged", "whole")
Row = dict[str, object]


def with_overlap(pipeline: Pipeline, on: bool) -> Pipeline:
    """``pipeline`` with its budget step's ``overlap`` set to ``on``."""
    steps = tuple(replace(s, overlap=on) if isinstance(s, FitBudget) else s for s in pipeline.steps)
    return replace(pipeline, steps=steps)


def merged_texts(items: Sequence[ContextItem]) -> list[str]:
    """The items' texts with the chunk items of one document and consecutive chunk numbers joined (in
    document order) into one text; other items (excerpts, facts) as they are."""
    runs: dict[tuple[str, int], str] = {}
    rest: list[str] = []
    for item in items:
        ord_ = item.metadata.get("ord")
        if item.kind == "chunk" and not item.metadata.get("excerpt") and isinstance(ord_, int) and item.doc_id:
            runs[(item.doc_id, ord_)] = item.text
        else:
            rest.append(item.text)
    joined: list[str] = []
    for doc, ord_ in sorted(runs):
        if joined and (doc, ord_ - 1) in runs:
            joined[-1] += " " + runs[(doc, ord_)]
        else:
            joined.append(runs[(doc, ord_)])
    return joined + rest


def whole_texts(items: Sequence[ContextItem], chunk_text: dict[str, str]) -> list[str]:
    """Every cut chunk item scored on its full chunk text (excerpts and facts as they are)."""
    return [chunk_text.get(i.id, i.text) if "chunk_span" in i.metadata else i.text for i in items]


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
        "merged": merged_texts(items),
        "whole": whole_texts(items, chunk_text),
    }
    cut = [i for i in items if "chunk_span" in i.metadata]
    return {
        **{f"recall_{k}": evidence_recall(item.evidence, v, overlap) or 0.0 for k, v in texts.items()},
        "tokens": sum(count.count(i.text) for i in items),  # type: ignore[attr-defined]
        "budget_tokens": budget or 0,
        "items": len(items),
        "excerpts": sum(bool(i.metadata.get("excerpt")) for i in items),
        "cut": len(cut),
        "cut_tokens": sum(count.count(chunk_text[i.id]) - count.count(i.text) for i in cut),  # type: ignore[attr-defined]
        "pairs": neighbour_pairs(items),
        "ids": [f"{i.kind}:{i.id}:{len(i.text)}" for i in items],
    }


def run_question(ws: Workspace, item: QAItem, pipelines: dict[str, dict[str, Pipeline]], n: int, env: Row) -> Row:
    ctx = ws.components.query_context
    k = ws.config.retrieval.k
    ctx.embed_query(item.question)  # cached: neither timed run pays for the embedder
    row: Row = {"id": item.id, "type": item.question_type}
    chunk_text: dict[str, str] = env["chunk_text"]  # type: ignore[assignment]
    for name, variants in pipelines.items():
        order = VARIANTS if n % 2 == 0 else VARIANTS[::-1]
        for variant in order:
            started = time.process_time()
            result = variants[variant].run(item.question, ctx, k)
            cpu = time.process_time() - started
            row[f"{name}:{variant}"] = outcome(item, result.items, result.context_tokens, chunk_text, env) | {
                "cpu": cpu
            }
    return row


def collect(ws_path: Path, items: list[QAItem], names: Sequence[str], cache: Path) -> list[Row]:
    have: dict[str, Row] = {}
    if cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            have[row["id"]] = row
    todo = [i for i in items if i.id not in have]
    if todo:
        with Workspace.open(ws_path) as ws, cache.open("a", encoding="utf-8") as out:
            env: Row = {
                "overlap": ws.config.evaluation.evidence_overlap,
                "count": TokenCounter.for_encoding(ws.config.chunking.encoding),
                "chunk_text": {c.id: c.text for c in ws.store.chunks.iter_all()},
            }
            pipelines = {
                name: {v: with_overlap(ws.querying.pipeline(name), v == "on") for v in VARIANTS} for name in names
            }
            for n, item in enumerate(todo):
                row = run_question(ws, item, pipelines, n, env)
                out.write(json.dumps(row) + "\n")
                have[item.id] = row
                if (n + 1) % 100 == 0:
                    print(f"  {n + 1}/{len(todo)} questions run", flush=True)
    return [have[i.id] for i in items]


def value(row: Row, key: str, field: str) -> float:
    return float(row[key][field])  # type: ignore[index]


def report(rows: list[Row], name: str) -> None:
    """Recall per question type for each variant and scoring, with the paired difference to ``off``."""
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
    on, off = f"{name}:on", base
    moved = [value(r, on, "recall_items") - value(r, off, "recall_items") for r in rows]
    same = sum(r[on]["ids"] == r[off]["ids"] for r in rows)  # type: ignore[index]
    print(
        f"\n{name}: questions with a neighbour pair (off) {sum(value(r, off, 'pairs') > 0 for r in rows)} of "
        f"{len(rows)}; on cuts {np.mean([value(r, on, 'cut') for r in rows]):.2f} items per query "
        f"({sum(value(r, on, 'cut') > 0 for r in rows)} questions), "
        f"{np.mean([value(r, on, 'cut_tokens') for r in rows]):.1f} chunk tokens left out per query; "
        f"items per query off {np.mean([value(r, off, 'items') for r in rows]):.2f}, on "
        f"{np.mean([value(r, on, 'items') for r in rows]):.2f} (excerpts off "
        f"{np.mean([value(r, off, 'excerpts') for r in rows]):.2f}, "
        f"on {np.mean([value(r, on, 'excerpts') for r in rows]):.2f}); "
        f"context unchanged on {same}; recall up on {sum(d > 0 for d in moved)}, down on {sum(d < 0 for d in moved)}"
    )
    cpu = {v: np.array([1000 * value(r, f"{name}:{v}", "cpu") for r in rows]) for v in VARIANTS}
    extra = t_estimate(cpu["on"] - cpu["off"], 0.95)
    low, high = extra.ci95 or (float("nan"), float("nan"))
    print(
        f"{name}: framework CPU ms per query (question vector cached): off {cpu['off'].mean():.2f} (median "
        f"{np.median(cpu['off']):.2f}), on {cpu['on'].mean():.2f} (median {np.median(cpu['on']):.2f}), paired "
        f"difference {extra.mean:+.2f} [{low:+.2f}, {high:+.2f}]"
    )


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
