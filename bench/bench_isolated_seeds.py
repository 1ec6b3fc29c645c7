"""Graph seeding without isolated one-mention entities: the graph pipelines with and without the entities
that have no relation and are mentioned in one chunk among the entities they seed from.

Such an entity leads a walk nowhere but to its one chunk, which the passage search may find anyway; if no
pipeline seeded from it by its vector, indexing would not need to embed it. The filter is applied here, at
query time, by replacing the entity matcher every graph pipeline seeds through
(:func:`kgrag.retrieval.steps.graph_local.score_entities`, used by ``graph-local``'s search and by
``query_seeds`` of ``ppr`` and ``paths``) with one that searches an exact subset of the stored entity
vectors. All arms read one workspace: ``off`` (today's matcher, called unchanged), ``filter`` (those
entities never seed: neither by vector nor by name) and ``vectors`` (they seed by name match only: what
not embedding them at indexing would leave). The filter lost recall and was not kept
(docs/results/graph-isolated-entities.md); this bench is what measured it.

Per question and pipeline (``graph-local``, ``ppr``, ``graph-mix-rerank``: the graph route of ``auto``),
the arms run in the same process, the question's vector cached first and the arm that runs first
rotating, with the retrieval CPU of each run (``time.process_time``). Prints the entity counts, the share
of today's ten best seed entities that the filter bars, evidence recall per question type with 95% t
intervals, the paired difference arm − off (`kgrag.evaluation.stats`), context tokens and CPU per query,
and the measured per-text embedding CPU of the workspace's model over a sample of the barred entities'
texts (what not embedding them would save, as an estimate). Rows are cached as JSON lines.

    HF_HUB_OFFLINE=1 KGRAG_EMBEDDING__PROVIDERS__ONNX__THREADS=1 nice -n 10 .venv/bin/python \
        bench/bench_isolated_seeds.py --workspace WS --dataset questions.json --cache rows.jsonl [--sample N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import kgrag.retrieval.steps.graph as graph_steps
import kgrag.retrieval.steps.graph_local as graph_local
from kgrag import Workspace
from kgrag.core.dense_index import DenseIndex
from kgrag.evaluation import load_dataset
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample
from kgrag.graph.index import GraphIndex
from kgrag.graph.normalize import entity_key
from kgrag.graph.texts import entity_text
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.steps.graph_local import LocalSearchParams, query_keywords
from recall_cells import cell
from row_cache import append_rows, cached_rows

PIPELINES = ("graph-local", "ppr", "graph-mix-rerank")
ARMS = ("off", "filter", "vectors")
TODAY = graph_local.score_entities
Row = dict[str, object]


def unseedable(index: GraphIndex) -> frozenset[str]:
    """Entities with no relation that at most one chunk mentions."""
    return frozenset(
        eid for eid, entity in index.entities.items() if not index.adjacency.get(eid) and len(set(entity.chunk_ids)) < 2
    )


@dataclass
class Seeding:
    """The arm that runs now, and per graph index its barred entities and the exact vectors of the rest."""

    arm: str = "off"
    subsets: dict[int, tuple[GraphIndex, frozenset[str], DenseIndex]] = field(default_factory=dict)

    def subset(self, index: GraphIndex) -> tuple[frozenset[str], DenseIndex]:
        if id(index) not in self.subsets:
            vectors = index.entity_vectors
            if not isinstance(vectors, DenseIndex):
                raise SystemExit("the bench needs exact entity vectors (store.vector_index = auto or exact)")
            barred = unseedable(index)
            rows = [row for row, eid in enumerate(vectors.ids) if eid not in barred]
            self.subsets[id(index)] = (index, barred, DenseIndex([vectors.ids[r] for r in rows], vectors.matrix[rows]))
        _, barred, kept = self.subsets[id(index)]
        return barred, kept

    def score_entities(
        self, index: GraphIndex, vector: np.ndarray | None, keywords: Sequence[str], params: LocalSearchParams
    ) -> dict[str, float]:
        """Today's matcher for ``off``; else the same over the kept vectors, name matches as the arm says."""
        if self.arm == "off":
            return TODAY(index, vector, keywords, params)
        barred, kept = self.subset(index)
        scores: dict[str, float] = {}
        if vector is not None and len(kept):
            scores = {hit.id: hit.score for hit in kept.search(vector, params.candidate_pool)}
        for keyword in keywords:
            entity_id = index.by_key.get(entity_key(keyword))
            if entity_id is not None and (self.arm == "vectors" or entity_id not in barred):
                scores[entity_id] = scores.get(entity_id, 0.0) + params.keyword_boost
        return scores


SEEDING = Seeding()
graph_local.score_entities = SEEDING.score_entities  # local_search looks it up here
graph_steps.score_entities = SEEDING.score_entities  # query_seeds (ppr, paths) here


def run_arm(ws: Workspace, pipeline: Pipeline, arm: str, item: QAItem) -> dict[str, float]:
    SEEDING.arm = arm
    started = time.process_time()
    result = pipeline.run(item.question, ws.components.query_context, ws.config.retrieval.k)
    cpu = time.process_time() - started
    SEEDING.arm = "off"
    texts = [i.text for i in result.items]
    recall = evidence_recall(item.evidence, texts, ws.config.evaluation.evidence_overlap) or 0.0
    return {"recall": recall, "tokens": float(result.context_tokens or 0), "cpu": cpu}


def barred_seeds(ws: Workspace, item: QAItem) -> int:
    """How many of today's ten best seed entities for ``item`` the filter bars."""
    ctx = ws.components.query_context
    index = graph_steps.graph_index(ctx)
    scores = TODAY(index, ctx.embed_query(item.question), query_keywords(item.question), LocalSearchParams())
    top = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    barred, _ = SEEDING.subset(index)
    return sum(1 for eid, _ in top if eid in barred)


def collect(ws_path: Path, items: list[QAItem], cache: Path) -> list[Row]:
    have: dict[str, Row] = cached_rows(cache)
    todo = [i for i in items if i.id not in have]
    if todo:
        with Workspace.open(ws_path) as ws, cache.open("a", encoding="utf-8") as out:
            pipelines = {name: ws.querying.pipeline(name) for name in PIPELINES}
            for arm in ARMS:  # load the graph, its seed subset and the reranker outside the timing
                for name in PIPELINES:
                    run_arm(ws, pipelines[name], arm, todo[0])

            def measure(n: int, item: QAItem) -> Row:
                ws.components.query_context.embed_query(item.question)
                row: Row = {"id": item.id, "type": item.question_type, "barred_top10": barred_seeds(ws, item)}
                for name in PIPELINES:
                    for arm in ARMS[n % 3 :] + ARMS[: n % 3]:
                        row[f"{name}:{arm}"] = run_arm(ws, pipelines[name], arm, item)
                return row

            append_rows(todo, measure, out, have, every=50)
    return [have[i.id] for i in items]


def value(row: Row, key: str, field: str) -> float:
    return float(row[key][field])  # type: ignore[index]


def report(rows: list[Row]) -> None:
    barred = [float(str(r["barred_top10"])) for r in rows]
    print(
        f"barred among today's 10 best seed entities: {np.mean(barred):.2f} per question; "
        f"questions with at least one: {np.mean([b > 0 for b in barred]):.1%}"
    )
    types = sorted({str(r["type"]) for r in rows})
    groups = {t: [r for r in rows if r["type"] == t] for t in types} | {"All": rows}
    heads = " | ".join(f"{t} (n={len(g)})" for t, g in groups.items())
    print(f"| pipeline | arm | {heads} | questions up / down | tokens | CPU ms |")
    print("|---|---|" + "---:|" * (len(groups) + 3))
    for name in PIPELINES:
        for arm in ARMS:
            key = f"{name}:{arm}"
            cells = []
            for members in groups.values():
                got = [value(r, key, "recall") for r in members]
                diff = [g - value(r, f"{name}:off", "recall") for g, r in zip(got, members, strict=True)]
                cells.append(cell(got) if arm == "off" else f"{cell(got)}<br>Δ {cell(diff, signed=True)}")
            tokens = np.mean([value(r, key, "tokens") for r in rows])
            cpu = 1000 * np.mean([value(r, key, "cpu") for r in rows])
            moved = [value(r, key, "recall") - value(r, f"{name}:off", "recall") for r in rows]
            updown = f"{sum(d > 0 for d in moved)} / {sum(d < 0 for d in moved)}"
            print(f"| {name} | {arm} | " + " | ".join(cells) + f" | {updown} | {tokens:.0f} | {cpu:.1f} |")


def entity_counts(ws_path: Path, sample: int) -> None:
    """Entities, those barred from seeding, and the measured embedding time per entity text."""
    with Workspace.open(ws_path) as ws:
        index = graph_steps.graph_index(ws.components.query_context)
        barred = unseedable(index)
        isolated = sum(1 for e in index.entities if not index.adjacency.get(e))
        print(
            f"entities {len(index.entities)}, with no relation {isolated}, "
            f"with no relation and one chunk {len(barred)} ({len(barred) / len(index.entities):.1%})"
        )
        embedder = ws.components.query_context.embedder()
        embedder.embed([entity_text(e) for e in list(index.entities.values())[:8]])  # load the model untimed
        for label, ids in (("barred", sorted(barred)), ("all", sorted(index.entities))):
            texts = [entity_text(index.entities[e]) for e in ids[:: max(1, len(ids) // sample)][:sample]]
            started = time.process_time()
            embedder.embed(texts)
            per_text = (time.process_time() - started) / max(len(texts), 1)
            print(
                f"embedding CPU per {label} entity text {1000 * per_text:.2f} ms over {len(texts)} texts "
                f"(mean {np.mean([len(t) for t in texts]):.0f} characters): "
                f"{per_text * len(ids):.1f} CPU s for the {len(ids)} {label} entities (estimate)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=0, help="a stratified sample of this many questions")
    parser.add_argument("--embed-sample", type=int, default=512, help="entity texts timed for the embedding cost")
    args = parser.parse_args()
    items = load_dataset(args.dataset)
    if args.sample:
        items = stratified_sample(items, args.sample)
    entity_counts(args.workspace, args.embed_sample)
    rows = collect(args.workspace, items, args.cache)
    report(rows)


if __name__ == "__main__":
    main()
