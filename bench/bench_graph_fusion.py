"""One reranked pool from the passage ranking and the graph's rankings, fused per question by their agreement.

`rerank` reranks the hybrid (dense + BM25, RRF) pool; `graph-mix-rerank` reranks LightRAG mix's pool
(dense + local and global graph search) and keeps the graph's facts. This bench builds two variants from
the same steps, registered on the workspace for the run only (nothing here is a shipped pipeline):

- `union-rerank`: dense, BM25, graph-local and graph-global passage streams fused by RRF into one pool
  of 50, reranked once by the workspace's reranker, the mix's facts after the passages;
- `agree-rerank`: the same, with the two graph streams weighted per question by their agreement with the
  passage ranking: the share of the hybrid top 10 that the graph streams' top 10 (interleaved) also hold.
  A graph that corroborates the text search gets a full vote; one that points elsewhere gets little.

`rerank` and `graph-mix-rerank` run in the same process on the same questions for the paired baseline.
Prints evidence recall per question type with 95% t intervals, each variant's paired difference to
`rerank`, the context tokens and the CPU ms per query.

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python bench/bench_graph_fusion.py --workspace WS \
        --dataset questions.json [--sample 300 --seed 0] [--source Novel-…]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgrag import Workspace
from kgrag.config import KgragConfig
from kgrag.documents import TokenCounter
from kgrag.evaluation import load_dataset
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.recipes.graph_local import local_params
from kgrag.retrieval.recipes.graph_mix import MIX_FACTS
from kgrag.retrieval.recipes.parts import EMBEDDINGS, GRAPH, finish
from kgrag.retrieval.steps.basic import BM25Search, DenseSearch, Hydrate, QueryState, _fused
from kgrag.retrieval.steps.graph import GraphLocalSearch
from kgrag.retrieval.steps.lightrag import AppendStreams, GraphGlobalSearch, _round_robin
from kgrag.retrieval.steps.query import ExtractKeywords
from kgrag.retrieval.steps.rerank import Rerank
from kgrag.workspace import kinds
from recall_cells import cell

TEXT = ("dense", "bm25")
GRAPH_STREAMS = ("graph_local", "graph_global")


@dataclass(frozen=True)
class AgreementFuse:
    """RRF of the text streams (weight 1) and the graph streams (weight ``w``), cut to ``keep``.
    ``w`` is fixed, or (``agreement``) the share of the text top ``depth`` the graph top ``depth`` holds."""

    keep: int = 50
    agreement: bool = False
    depth: int = 10
    rrf_k: int = 60
    name: str = "agreement_fuse"

    def weight(self, state: QueryState) -> float:
        if not self.agreement:
            return 1.0
        text = _rrf(state, TEXT, 1.0, self.rrf_k)[: self.depth]
        graph = [i.id for i in _round_robin([state.streams.get(s, []) for s in GRAPH_STREAMS])][: self.depth]
        return len(set(text) & set(graph)) / self.depth if text else 0.0

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        w = self.weight(state)
        scores: dict[str, float] = {}
        seen: dict[str, list] = {}
        for streams, weight in ((TEXT, 1.0), (GRAPH_STREAMS, w)):
            for stream in streams:
                for rank, item in enumerate(state.streams.get(stream, []), start=1):
                    if item.kind != "chunk":
                        continue
                    scores[item.id] = scores.get(item.id, 0.0) + weight / (self.rrf_k + rank)
                    seen.setdefault(item.id, []).append(item)
        ranked = sorted(scores, key=lambda i: -scores[i])[: self.keep]
        state.items = [_fused(seen[i], scores[i]) for i in ranked]
        state.record(self.name, {"graph_weight": round(w, 3)}, len(state.items), started)


def _rrf(state: QueryState, streams: tuple[str, ...], weight: float, k: int) -> list[str]:
    scores: dict[str, float] = {}
    for stream in streams:
        for rank, item in enumerate(state.streams.get(stream, []), start=1):
            scores[item.id] = scores.get(item.id, 0.0) + weight / (k + rank)
    return sorted(scores, key=lambda i: -scores[i])


def variant(agreement: bool):
    def factory(name: str, config: KgragConfig) -> Pipeline:
        pool = config.retrieval.pool_for(name)
        return Pipeline(
            name,
            "bench variant",
            (
                ExtractKeywords(),
                GraphLocalSearch(local_params(config, name)),
                GraphGlobalSearch(),
                DenseSearch(pool=pool),
                BM25Search(pool=pool),
                AgreementFuse(keep=pool, agreement=agreement, rrf_k=config.retrieval.rrf_k_for(name)),
                AppendStreams(MIX_FACTS),
                Hydrate(),
                Rerank(),
                *finish(name, config),
            ),
            requires=GRAPH | EMBEDDINGS,
        )

    return factory


def measure(ws: Workspace, item: QAItem, pipeline: str, count: TokenCounter, overlap: float) -> tuple[dict, Any]:
    """One question through one pipeline: its evidence recall, context tokens and CPU seconds, and the result."""
    cpu = time.process_time()
    result = ws.retrieve(item.question, pipeline)
    cpu = time.process_time() - cpu
    texts = [i.text for i in result.items]
    recall = evidence_recall(item.evidence, texts, overlap) or 0.0
    return {"recall": recall, "tokens": sum(count.count(t) for t in texts), "cpu": cpu}, result


def report(rows: list[dict], pipelines: list[str]) -> None:
    types = sorted({r["type"] for r in rows})
    groups = {t: [r for r in rows if r["type"] == t] for t in types} | {"All": rows}
    print("| pipeline | " + " | ".join(f"{t} (n={len(g)})" for t, g in groups.items()) + " | tokens | CPU ms/query |")
    print("|---|" + "---:|" * (len(groups) + 2))
    for p in pipelines:
        cells = []
        for group in groups.values():
            mine = [r[p]["recall"] for r in group]
            diff = [r[p]["recall"] - r["rerank"]["recall"] for r in group]
            cells.append(cell(mine) + ("" if p == "rerank" else f"<br>Δ {cell(diff, signed=True)}"))
        tokens = np.mean([r[p]["tokens"] for r in rows])
        cpu = 1000 * np.mean([r[p]["cpu"] for r in rows])
        print(f"| {p} | " + " | ".join(cells) + f" | {tokens:.0f} | {cpu:.0f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--source", default=None, help="only questions whose `source` is this")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    raw = json.loads(args.dataset.read_text(encoding="utf-8"))
    keep = {str(q["id"]) for q in raw if args.source is None or q.get("source") == args.source}
    items = [i for i in load_dataset(args.dataset) if i.evidence and i.id in keep]
    if args.sample:
        items = stratified_sample(items, args.sample, args.seed)
    pipelines = ["rerank", "graph-mix-rerank", "union-rerank", "agree-rerank"]
    count = TokenCounter.for_encoding()
    rows: list[dict] = []
    weights: list[float] = []
    with Workspace.open(args.workspace) as ws:
        registry = kinds.pipelines(ws)
        registry.register("union-rerank", variant(False), summary="bench variant")
        registry.register("agree-rerank", variant(True), summary="bench variant")
        overlap = ws.config.evaluation.evidence_overlap
        for n, item in enumerate(items):
            row: dict = {"id": item.id, "type": item.question_type}
            for p in pipelines:
                row[p], result = measure(ws, item, p, count, overlap)
                if p == "agree-rerank":
                    weights += [float(s.params["graph_weight"]) for s in result.trace if s.step == "agreement_fuse"]
            rows.append(row)
            if (n + 1) % 50 == 0:
                print(f"  {n + 1}/{len(items)} questions", flush=True)
    report(rows, pipelines)
    print(f"agree-rerank graph weight: mean {np.mean(weights):.3f}, zero on {sum(w == 0 for w in weights)}")
    if args.json:
        args.json.write_text(json.dumps(rows), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
