"""PageRank seeded by the question's nearest facts (HippoRAG 2's query-to-fact matching), LLM-free.

`ppr` and `ppr-passages` seed the walk with the entities whose own vectors match the question. HippoRAG 2
(hipporag2) matches the question against *facts* instead: the relation texts (``"source label target:
description"``, the vectors `embed_graph(with_relations=True)` stores) nearest the question vector are
recalled, and the entities at their ends become the seeds, each weighted by the mean score of the recalled
facts it ends (× the specificity `ppr-passages` uses). HippoRAG 2 filters the recalled facts with an LLM
("recognition memory"); here no LLM is called, the top facts are kept as they are. The rest is
`ppr-passages`' walk: passages are vertices linked to the entities extracted from them, the reset vector
mixes the entity seeds with the question's dense + BM25 passages (share ``w``), passages are ranked by
their PageRank mass.

Arms (registered on the workspace for the run only; nothing here is a shipped pipeline):

- ``fact-ppr[-wW][-fN]``: fact seeds (top N facts, default 5) + passage seeds with share W (default 0.8,
  `ppr-passages`' default) → PageRank → the top k passages;
- ``fact-ppr[-wW][-fN]-rerank``: the same PageRank pool of 50, reranked by the workspace's reranker;
- ``…-fp``: the recalled facts' own passages (the chunks each relation was extracted from) join dense
  and BM25 as a third stream of passage seeds (RRF);
- ``entity-ppr[-wW][-rerank]``: the control, `ppr-passages`' entity seeds in the same arm
  (``ppr-passages-rerank`` = ``entity-ppr-rerank``).

`rerank`, `ppr` and `ppr-passages` run in the same process on the same questions as paired baselines.
With ``--folds``, the arms named by ``--choose`` are also chosen per fold of
`kgrag.tuning.evidence_folds` (questions with the same main evidence passage stay together): the arm best
on the other folds answers the held-out fold (row ``cv-chosen``). ``--previous`` reports the arms of an
earlier ``--json`` beside this run's (same questions); ``--seed-stats N`` only prints where the entity
seeds and the seeds of the top N facts point (passages mentioning them, share holding evidence).

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python bench/bench_fact_seeds.py --workspace WS \
        --dataset questions.json [--sample 300 --seed 0] [--arms rerank,ppr,fact-ppr] [--folds 5]

The workspace needs relation vectors (``embed_graph(store, embedder, with_relations=True)`` of
`kgrag.graph.build.vectors`; `kgrag index` embeds entities only); without them the fact arms have no
fact seeds and walk from the passages alone.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import JsonValue

from bench_graph_fusion import measure
from kgrag import Workspace
from kgrag.config import KgragConfig
from kgrag.core.context import ContextItem
from kgrag.core.vector_index import VectorIndex
from kgrag.documents import TokenCounter
from kgrag.documents.words import content_words
from kgrag.evaluation import load_dataset
from kgrag.evaluation.ceiling import ChunkWords
from kgrag.evaluation.sampling import stratified_sample
from kgrag.graph.index import GraphIndex
from kgrag.graph.pagerank import PassageGraph
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.recipes.parts import EMBEDDINGS, GRAPH, finish
from kgrag.retrieval.steps.basic import BM25Search, DenseSearch, Hydrate, QueryState, TakeTop, UseStream
from kgrag.retrieval.steps.graph import graph_index, query_seeds
from kgrag.retrieval.steps.ppr import PassagePageRank, passage_reset, seed_scores, walk_passages
from kgrag.retrieval.steps.rerank import Rerank
from kgrag.tuning.evidence_folds import evidence_folds
from kgrag.workspace import kinds
from recall_cells import cell

BASELINES = ("rerank", "ppr", "ppr-passages")
TEXT = ("dense", "bm25")
DEFAULT_ARMS = "rerank,ppr,ppr-passages,fact-ppr,fact-ppr-w0.5,fact-ppr-f20,fact-ppr-w0,fact-ppr-rerank"


def recalled_facts(index: GraphIndex, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
    """The ``limit`` relations whose vectors are nearest the question (relation id, cosine), best first."""
    relations: VectorIndex = index.relation_vectors
    if not len(relations):
        return []
    return [(h.id, float(h.score)) for h in relations.search(vector, limit) if h.id in index.relations]


def fact_reset(index: GraphIndex, facts: Sequence[tuple[str, float]], graph: PassageGraph) -> dict[int, float]:
    """Vertex → mean score of the recalled facts the entity ends × its specificity, summing to 1."""
    scores: dict[str, list[float]] = {}
    for relation_id, score in facts:
        relation = index.relations[relation_id]
        for end in dict.fromkeys((relation.source_id, relation.target_id)):
            if score > 0:
                scores.setdefault(end, []).append(score)
    weights: dict[int, float] = {}
    for entity_id, values in scores.items():
        v = graph.entity_vertex.get(entity_id)
        if v is not None and entity_id in index.entities:
            n_chunks = len(index.entities[entity_id].chunk_ids)
            weights[v] = float(np.mean(values)) / (1.0 + math.log1p(n_chunks))
    total = sum(weights.values())
    return {v: w / total for v, w in weights.items()} if total > 0 else {}


@dataclass(frozen=True)
class FactPageRank:
    """Fact seeds + dense/BM25 passage seeds → PPR over the passage graph → passages (stream ``fact_ppr``)."""

    pool: int = 50
    damping: float = 0.5
    passage_weight: float = 0.8
    facts: int = 5
    seed_streams: tuple[str, ...] = TEXT
    fact_passages: bool = False
    rrf_k: int = 60
    name: str = "fact_ppr"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        index = graph_index(env)
        graph = env.graph_snapshot().passage_graph
        facts = recalled_facts(index, env.embed_query(state.query), self.facts)
        entities = fact_reset(index, facts, graph)
        streams = self.seed_streams
        if self.fact_passages:  # the recalled facts' own passages, a third stream of passage seeds
            chunk_ids = dict.fromkeys(c for r, _ in facts for c in index.relations[r].chunk_ids)
            state.streams["fact_passages"] = [ContextItem(kind="chunk", id=c, text="", score=0.0) for c in chunk_ids]
            streams = (*streams, "fact_passages")
        passages = passage_reset(seed_scores(state, streams, self.rrf_k)) if self.passage_weight else {}
        if not entities and not passages:
            state.streams["fact_ppr"] = []
            state.record(self.name, {"facts": 0}, 0, started, "no fact and no passage to seed from")
            return
        weights = (self.passage_weight, self.damping)
        ranked = walk_passages(graph, entities, passages, weights, self.pool, "fact_ppr")
        state.streams["fact_ppr"] = ranked
        params: dict[str, JsonValue] = {
            "facts": [r for r, _ in facts],
            "seeds": len(entities),
            "passage_seeds": len(passages),
        }
        state.record(self.name, params, len(ranked), started)


def walk_arm(
    seeds: str, passage_weight: float, facts: int, fact_passages: bool, rerank: bool
) -> Callable[[str, KgragConfig], Pipeline]:
    """Dense + BM25 → PageRank over the passage graph from fact (or, as `ppr-passages`, entity) seeds →
    the top k passages, or the pool of 50 reranked."""

    def factory(name: str, config: KgragConfig) -> Pipeline:
        pool, rrf_k = config.retrieval.pool_for(name), config.retrieval.rrf_k
        walk: FactPageRank | PassagePageRank
        if seeds == "fact":
            walk = FactPageRank(pool, 0.5, passage_weight, facts, fact_passages=fact_passages, rrf_k=rrf_k)
        else:
            walk = PassagePageRank(pool=pool, passage_weight=passage_weight, seed_streams=TEXT, rrf_k=rrf_k)
        tail = (TakeTop(limit=pool), Hydrate(), Rerank()) if rerank else (TakeTop(),)
        steps = (DenseSearch(pool=pool), BM25Search(pool=pool), walk, UseStream(walk.name))
        return Pipeline(name, "bench arm", (*steps, *tail, *finish(name, config)), requires=GRAPH | EMBEDDINGS)

    return factory


def arm_factory(name: str) -> Callable[[str, KgragConfig], Pipeline]:
    """``(fact|entity)-ppr[-wW][-fN][-fp][-rerank]`` → its pipeline factory (``ppr-passages-rerank`` is
    ``entity-ppr-rerank``; ``-fN``, the number of facts, and ``-fp``, the facts' passages as seeds, only
    for fact seeds)."""
    if name == "ppr-passages-rerank":
        name = "entity-ppr-rerank"
    match = re.fullmatch(r"(fact|entity)-ppr(?:-w([0-9.]+))?(?:-f([0-9]+))?(-fp)?(-rerank)?", name)
    if not match:
        raise SystemExit(f"unknown arm {name!r}: expected (fact|entity)-ppr[-wW][-fN][-fp][-rerank] or a pipeline")
    seeds, w, n, fp, rerank = match.groups()
    return walk_arm(seeds, float(w) if w else 0.8, int(n) if n else 5, bool(fp), bool(rerank))


def report(rows: list[dict], arms: list[str]) -> None:
    """Per question type: recall with its interval, Δ to each baseline present; tokens and CPU ms per query."""
    types = sorted({r["type"] for r in rows})
    groups = {t: [r for r in rows if r["type"] == t] for t in types} | {"All": rows}
    bases = [b for b in BASELINES if b in arms]
    print("| arm | " + " | ".join(f"{t} ({len(g)})" for t, g in groups.items()) + " | tokens | CPU ms/query |")
    print("|---|" + "---:|" * (len(groups) + 2))
    for arm in arms:
        cells = []
        for group in groups.values():
            text = cell([r[arm]["recall"] for r in group])
            for base in bases:
                if base != arm:
                    diff = [r[arm]["recall"] - r[base]["recall"] for r in group]
                    text += f"<br>Δ{base} {cell(diff, signed=True)}"
            cells.append(text)
        tokens = np.mean([r[arm]["tokens"] for r in rows])
        cpu = np.mean([r[arm]["cpu"] for r in rows]) * 1000 if "cpu" in rows[0][arm] else float("nan")
        print(f"| {arm} | " + " | ".join(cells) + f" | {tokens:.0f} | {cpu:.0f} |")


def cross_validate(rows: list[dict], fold: list[int], choose: list[str]) -> list[str]:
    """Add arm ``cv-chosen``: on each fold, the arm of ``choose`` with the best mean recall on the others."""
    picks = []
    for f in sorted(set(fold)):
        train = [r for r, g in zip(rows, fold, strict=True) if g != f]
        best = max(choose, key=lambda a: (np.mean([r[a]["recall"] for r in train]), -choose.index(a)))
        picks.append(best)
        for r, g in zip(rows, fold, strict=True):
            if g == f:
                r["cv-chosen"] = {"recall": r[best]["recall"], "tokens": r[best]["tokens"]}
    return picks


def run_arms(ws: Workspace, items: list, arms: list[str]) -> list[dict]:
    count = TokenCounter.for_encoding()
    overlap = ws.config.evaluation.evidence_overlap
    rows: list[dict] = []
    for n, item in enumerate(items):
        row: dict = {"id": item.id, "type": item.question_type}
        for arm in arms:
            row[arm], _ = measure(ws, item, arm, count, overlap)
        rows.append(row)
        if (n + 1) % 100 == 0:
            print(f"  {n + 1}/{len(items)} questions", flush=True)
    return rows


def merge_previous(rows: list[dict], path: Path, arms: list[str]) -> list[str]:
    """Add the arms of an earlier run's outcomes (same questions, matched by id) that this run did not run."""
    earlier = {r["id"]: r for r in json.loads(path.read_text(encoding="utf-8"))}
    extra = [a for a in next(iter(earlier.values())) if a not in {"id", "type", "cv-chosen", *arms}]
    for row in rows:
        row.update({a: earlier[row["id"]][a] for a in extra})
    return extra


def seed_stats(ws: Workspace, items: list, facts: int) -> None:
    """Where each kind of seed points, per question type: how many passages mention a seed entity (median)
    and the share of them holding an evidence sentence; the same for the passages the recalled facts were
    extracted from; and how many distinct sentences (descriptions) the recalled facts restate."""
    ctx = ws.components.query_context
    index = graph_index(ctx)
    chunks = list(ws.store.chunks.iter_all())
    position = {c.id: i for i, c in enumerate(chunks)}
    words, overlap = ChunkWords(c.text for c in chunks), ws.config.evaluation.evidence_overlap
    stats: dict[str, list[tuple[float, ...]]] = {}
    for item in items:
        holding = set().union(*(words.holding(w, overlap) for e in item.evidence if (w := content_words(e))))
        recalled = recalled_facts(index, ctx.embed_query(item.question), facts)
        ends = {e for r, _ in recalled for e in (index.relations[r].source_id, index.relations[r].target_id)}
        sides = {
            "entity seeds": {c for e, _ in query_seeds(ctx, item.question, 10)[1] for c in index.entities[e].chunk_ids},
            "fact seeds": {c for e in ends if e in index.entities for c in index.entities[e].chunk_ids},
            "fact passages": {c for r, _ in recalled for c in index.relations[r].chunk_ids},
        }
        row: list[float] = []
        for passages in sides.values():
            held = sum(position[c] in holding for c in passages if c in position)
            row += [len(passages), held / len(passages) if passages else 0.0]
        row.append(len({index.relations[r].description for r, _ in recalled}))
        stats.setdefault(item.question_type, []).append(tuple(row))
    stats["All"] = [r for rows in list(stats.values()) for r in rows]
    print(
        "| type | entity seeds: passages (median) | share holding evidence | fact seeds: passages | share "
        f"| facts' own passages | share | distinct sentences in the top {facts} facts (mean) |"
    )
    print("|---|" + "---:|" * 7)
    for kind, rows in stats.items():
        a = np.asarray(rows)
        cells = [f"{np.median(a[:, i]):.0f} | {np.mean(a[:, i + 1]):.3f}" for i in (0, 2, 4)]
        print(f"| {kind} ({len(rows)}) | " + " | ".join(cells) + f" | {np.mean(a[:, 6]):.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--arms", default=DEFAULT_ARMS)
    parser.add_argument("--folds", type=int, default=0, help="cross-validate the choice among --choose")
    parser.add_argument("--choose", default="fact-ppr,fact-ppr-w0.5,fact-ppr-f20")
    parser.add_argument("--json", type=Path, default=None, help="write the per-question outcomes here")
    parser.add_argument("--seed-stats", type=int, default=0, help="only print where the seeds of N facts point")
    parser.add_argument("--previous", type=Path, default=None, help="outcomes of other arms (--json) to report beside")
    args = parser.parse_args()
    items = [i for i in load_dataset(args.dataset) if i.evidence]
    if args.sample:
        items = stratified_sample(items, args.sample, args.seed)
    arms = args.arms.split(",")
    with Workspace.open(args.workspace) as ws:
        if args.seed_stats:
            seed_stats(ws, items, args.seed_stats)
            return 0
        registry = kinds.pipelines(ws)
        for arm in arms:
            if arm.startswith(("fact-ppr", "entity-ppr")) or arm == "ppr-passages-rerank":
                registry.register(arm, arm_factory(arm), summary="bench arm")
        relations = len(graph_index(ws.components.query_context).relation_vectors)
        print(f"relation vectors: {relations}", flush=True)
        rows = run_arms(ws, items, arms)
        if args.previous:
            arms += merge_previous(rows, args.previous, arms)
        if args.folds:
            chunks = ChunkWords(c.text for c in ws.store.chunks.iter_all())
            split = evidence_folds(items, chunks, args.folds, args.seed, ws.config.evaluation.evidence_overlap)
            picks = cross_validate(rows, split.fold, args.choose.split(","))
            print(f"folds: {split.groups} groups (largest {split.largest_group}); chosen per fold: {picks}")
            arms.append("cv-chosen")
    report(rows, arms)
    if args.json:
        args.json.write_text(json.dumps(rows), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
