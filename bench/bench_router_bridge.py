"""`auto`'s LLM-free routes before and after the graph-bridge rule, on a labelled question set.

Before, naming two graph entities sent a question to the multi-hop route; now two named entities do so
only when the graph links them through a third one (:mod:`kgrag.retrieval.steps.route_graph`). Both
rules are applied to every question; each question's evidence recall and context tokens are measured
once per pipeline a route leads to (`rerank` for local, `graph-mix-rerank` for multi-hop, no community
reports: global → multi-hop), so `auto` under either rule is the outcome of the pipeline that rule chose
(`auto` runs the routed pipeline's steps on the same query; `--check N` runs `auto` itself on N questions
to confirm it). Prints the route counts and the recall per question type with 95% intervals, and the
paired difference after − before with its interval (the t interval of `kgrag.evaluation.stats`).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_router_bridge.py --workspace WS --dataset questions.json \
        [--source Novel-58553] [--limit N] [--check 20]

The workspace must be indexed with a graph (the default `standard` pipeline) and hold no stored router
policy (with one, `auto` routes by the policy and the heuristics are not what runs).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from kgrag import Workspace
from kgrag.documents import TokenCounter
from kgrag.evaluation import load_dataset
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.graph.normalize import entity_key
from kgrag.retrieval.steps.graph_local import query_keywords
from kgrag.retrieval.steps.route_graph import RouteGraph
from kgrag.retrieval.steps.router import _GLOBAL, _MULTI_HOP, DEFAULT_ROUTES, heuristic_decision
from recall_cells import cell

ROUTED = {
    "local": DEFAULT_ROUTES["local"],
    "multi-hop": DEFAULT_ROUTES["multi-hop"],
    "global": DEFAULT_ROUTES["multi-hop"],
}


def before_route(question: str, graph: RouteGraph) -> str:
    """The rule this change replaced: two named graph entities → multi-hop."""
    if _GLOBAL.search(question):
        return "global"
    if _MULTI_HOP.search(question):
        return "multi-hop"
    named = [p for p in query_keywords(question) if entity_key(p) in graph.index.by_key]
    return "multi-hop" if len(named) >= 2 else "local"


def outcome(ws: Workspace, item: QAItem, pipeline: str, count: TokenCounter) -> tuple[float, int]:
    texts = [i.text for i in ws.retrieve(item.question, pipeline).items]
    recall = evidence_recall(item.evidence, texts, ws.config.evaluation.evidence_overlap) or 0.0
    return recall, sum(count.count(t) for t in texts)


HEADER = (
    "| type | n | routes before (local/multi-hop) | routes after | rerank | graph-mix-rerank | auto before "
    "| auto after | after − before [95% CI] | tokens before / after |"
)


def routes(rows: list[dict[str, object]], key: str) -> str:
    counts = Counter(str(r[key]) for r in rows)
    return f"{counts['local']}/{counts['multi-hop'] + counts['global']}"


def column(rows: list[dict[str, object]], key: str) -> list[float]:
    return [float(str(r[key])) for r in rows]


def report(rows: list[dict[str, object]]) -> None:
    by_type: dict[str, list[dict[str, object]]] = defaultdict(list)
    for row in rows:
        by_type[str(row["type"])].append(row)
        by_type["All"].append(row)
    print(HEADER)
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for qtype in [*sorted(t for t in by_type if t != "All"), "All"]:
        mine = by_type[qtype]
        after, before = column(mine, "auto_after"), column(mine, "auto_before")
        diff = [x - y for x, y in zip(after, before, strict=True)]
        tokens = f"{np.mean(column(mine, 'tokens_before')):.0f} / {np.mean(column(mine, 'tokens_after')):.0f}"
        cells = [qtype, str(len(mine)), routes(mine, "before"), routes(mine, "after")]
        cells += [cell(column(mine, "rerank")), cell(column(mine, "gmr")), cell(before), cell(after)]
        cells += [cell(diff, signed=True), tokens]
        print("| " + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--source", default=None, help="only questions whose `source` is this (Novel books)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--check", type=int, default=10, help="questions on which `auto` itself is run")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    raw = json.loads(args.dataset.read_text(encoding="utf-8"))
    keep = {str(q["id"]) for q in raw if args.source is None or q.get("source") == args.source}
    items = [i for i in load_dataset(args.dataset) if i.id in keep and i.evidence][: args.limit]
    count = TokenCounter.for_encoding()
    rows: list[dict[str, object]] = []
    started, cpu = time.time(), time.process_time()
    with Workspace.open(args.workspace) as ws:
        graph = RouteGraph(ws.components.query_context.graph_index())
        for n, item in enumerate(items):
            recall = {name: outcome(ws, item, name, count) for name in dict.fromkeys(ROUTED.values())}
            before, after = before_route(item.question, graph), heuristic_decision(item.question, graph)[0]
            row: dict[str, object] = {"id": item.id, "type": item.question_type, "before": before, "after": after}
            row.update(rerank=recall["rerank"][0], gmr=recall["graph-mix-rerank"][0])
            row.update(auto_before=recall[ROUTED[before]][0], auto_after=recall[ROUTED[after]][0])
            row.update(tokens_before=recall[ROUTED[before]][1], tokens_after=recall[ROUTED[after]][1])
            if n < args.check:
                row["auto_checked"] = outcome(ws, item, "auto", count)[0]
                assert row["auto_checked"] == row["auto_after"], (item.id, row)
            rows.append(row)
            if (n + 1) % 50 == 0:
                print(f"  {n + 1}/{len(items)} questions, {time.process_time() - cpu:.0f} CPU s", flush=True)
    print(f"{len(items)} questions, {time.time() - started:.0f} s wall, {time.process_time() - cpu:.0f} CPU s")
    report(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
