"""Personalized PageRank retrieval: the two PPR steps, ``ppr`` over entities and ``ppr-passages`` over
entities and passages. The solver and the graphs they walk are in :mod:`kgrag.graph.pagerank`, built once
per graph version by the query context's graph snapshot (:mod:`kgrag.graph.snapshot`).

**ppr** (fast-graphrag, HippoRAG; see ``zeng-unbiased-eval`` and ``deg-rag`` in docs/references.md for
why PPR and a clean graph help). Seeds are the entities the question matches (entity-vector similarity
plus typed names, as in graph-local), each weighted by its match score and its *specificity* (an entity
cited by few passages says more than one cited everywhere). PageRank spreads that mass over the weighted
graph (:func:`kgrag.graph.pagerank.personalized_walk`: igraph's stationary distribution as one sparse solve
over a factorisation made once per graph version, not PRPACK's iterations over the whole graph per
question, on graphs up to ``SPARSE_SOLVE_MAX_EDGES`` edges; igraph beyond); a passage scores the
PageRank of the entities it mentions, each divided by how many passages mention it, so multi-hop
neighbours reached through the graph lift the passages that connect them.

**ppr-passages** (hipporag2).

``ppr`` runs PageRank over the entity graph and then scores each passage from the entities it mentions.
Here the passages are nodes of the graph (:class:`kgrag.graph.pagerank.PassageGraph`) and PageRank ranks them
directly, as HippoRAG 2 does:

1. **Entity seeds**: the entities the question matches (entity vectors plus typed names, the seeds of
   ``ppr`` and ``paths``), each weighted by its match score × specificity ``1 / (1 + ln(1 + passages))``
   (an entity mentioned everywhere says little about where the answer is).
2. **Passage seeds**: the first-stage passages (the pipeline's pool), their scores min-max normalised
   over the pool, so the best passage weighs 1 and the weakest 0. HippoRAG 2 seeds with dense scores
   alone; the recipe seeds with the reciprocal-rank fusion of dense and BM25 (``seed_streams``), which
   recalls more evidence (docs/results/medical-retrieval-quality.md, docs/results/design-measurements.md).
3. **Reset vector**: the two groups are normalised to sum 1 each and mixed,
   ``reset = (1 − w) · entities + w · passages`` with ``w = passage_weight``. HippoRAG 2 multiplies its
   passage scores by a small constant instead; a share of the total mass says the same thing without
   depending on how many seeds each side has, so one ``w`` suits a question that matches one entity and
   one that matches ten. Without entity seeds the walk starts from the passages only (and vice versa).
   The default ``w`` = 0.8 recalled the most of the shares tried (docs/results/design-measurements.md): the
   entity seeds of the LLM-free graph are many generic noun phrases, so they steer, but must not lead.
4. igraph's PRPACK solves PageRank (``damping`` = probability of following an edge, 0.5 as in ``ppr``);
   a passage's score is its PageRank mass. A seeded passage that no entity mentions has no vertex; it
   keeps ``(1 − damping)`` × its reset share, the mass a restart puts on it before it could move on.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from pydantic import JsonValue

from kgrag.core.context import ContextItem
from kgrag.graph.index import GraphIndex
from kgrag.graph.pagerank import PassageGraph, top_order
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.graph import chunk_items, entity_item, query_seeds

SEEDS = 10
SPREAD_ENTITIES = 200
FACTS = 5
DEFAULT_PASSAGE_WEIGHT = 0.8

K = TypeVar("K")


def _specificity(n_chunks: int) -> float:
    return 1.0 / (1.0 + math.log1p(n_chunks))


@dataclass(frozen=True)
class PersonalizedPageRank:
    """Seeds → PPR → passages (stream ``ppr``) and the top PageRank entities (``ppr_facts``)."""

    pool: int = 50
    damping: float = 0.5
    name: str = "ppr"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        index, seeds = query_seeds(env, state.query, SEEDS)
        snapshot = env.graph_snapshot()
        view = snapshot.igraph
        reset = np.zeros(view.graph.vcount())
        for entity_id, score in seeds:
            v = view.vertex.get(entity_id)
            if v is not None and score > 0:
                reset[v] += score * _specificity(len(index.entities[entity_id].chunk_ids))
        if not reset.any():
            state.streams["ppr"], state.streams["ppr_facts"] = [], []
            state.record(self.name, {"seeds": 0}, 0, started, "no entity matched the question")
            return
        ranks = view.walk.personalized(reset, self.damping)
        top = top_order(ranks, SPREAD_ENTITIES)  # ties: vertex order
        ranked = snapshot.vertex_passages.scores(top, ranks[top], self.pool)
        state.streams["ppr"] = chunk_items([(c, 0, s) for c, s in ranked], "ppr")
        for item, (_, s) in zip(state.streams["ppr"], ranked, strict=True):
            item.score = item.scores["ppr"] = s
        facts = [(index.entities[view.ids[v]], float(ranks[v])) for v in top[:FACTS] if view.ids[v] in index.entities]
        state.streams["ppr_facts"] = [entity_item(pair, 0) for pair in facts]
        names = [index.entities[e].name for e, _ in seeds if e in index.entities]
        params: dict[str, JsonValue] = {"seeds": [*names], "damping": self.damping}
        state.record(self.name, params, len(ranked), started)


def entity_reset(index: GraphIndex, seeds: Sequence[tuple[str, float]], graph: PassageGraph) -> dict[int, float]:
    """Vertex → match score × specificity for the seeds that have a vertex, summing to 1 (empty if none)."""
    weights: dict[int, float] = {}
    for entity_id, score in seeds:
        v = graph.entity_vertex.get(entity_id)
        if v is not None and score > 0:
            weights[v] = weights.get(v, 0.0) + score / (1.0 + math.log1p(len(index.entities[entity_id].chunk_ids)))
    return _normalised(weights)


def seed_scores(state: QueryState, streams: Sequence[str], rrf_k: int = 60) -> dict[str, float]:
    """Chunk id → seed score: one stream's own scores, or the reciprocal-rank fusion of several."""
    if len(streams) == 1:
        return {item.id: item.score for item in state.streams.get(streams[0], [])}
    fused: dict[str, float] = {}
    for stream in streams:
        for rank, item in enumerate(state.streams.get(stream, []), start=1):
            fused[item.id] = fused.get(item.id, 0.0) + 1.0 / (rrf_k + rank)
    return fused


def passage_reset(scores: dict[str, float]) -> dict[str, float]:
    """Chunk id → min-max normalised score, summing to 1 (equal shares when all scores are equal)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    span = high - low
    return _normalised({chunk_id: (s - low) / span if span > 0 else 1.0 for chunk_id, s in scores.items()})


def _normalised(weights: dict[K, float]) -> dict[K, float]:
    total = sum(weights.values())
    return {key: w / total for key, w in weights.items() if w > 0} if total > 0 else {}


def mix_reset(
    entities: dict[int, float], passages: dict[str, float], graph: PassageGraph, passage_weight: float
) -> tuple[list[float], dict[str, float]]:
    """The reset vector over the graph's vertices and the reset share of seeded passages without a vertex."""
    w = passage_weight if entities and passages else (1.0 if passages else 0.0)
    reset = [0.0] * graph.graph.vcount()
    for v, share in entities.items():
        reset[v] += (1.0 - w) * share
    off_graph: dict[str, float] = {}
    for chunk_id, share in passages.items():
        vertex = graph.passage_vertex.get(chunk_id)
        if vertex is None:
            off_graph[chunk_id] = w * share
        else:
            reset[vertex] += w * share
    return reset, off_graph


@dataclass(frozen=True)
class PassagePageRank:
    """Entity + dense passage seeds → PPR over the passage graph (igraph) → passages by PageRank mass
    (stream ``ppr_passages``)."""

    pool: int = 50
    damping: float = 0.5
    passage_weight: float = DEFAULT_PASSAGE_WEIGHT
    seed_streams: tuple[str, ...] = ("dense",)
    rrf_k: int = 60
    stream: str = "ppr_passages"
    name: str = "ppr_passages"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        index, seeds = query_seeds(env, state.query, SEEDS)
        graph = env.graph_snapshot().passage_graph
        entities = entity_reset(index, seeds, graph)
        passages = passage_reset(seed_scores(state, self.seed_streams, self.rrf_k))
        params: dict[str, JsonValue] = {
            "seeds": [index.entities[e].name for e, _ in seeds],
            "passage_seeds": len(passages),
            "damping": self.damping,
            "passage_weight": self.passage_weight,
        }
        if not entities and not passages:
            state.streams[self.stream] = []
            state.record(self.name, params, 0, started, "no entity matched and no passage to seed from")
            return
        ranked = walk_passages(graph, entities, passages, (self.passage_weight, self.damping), self.pool, self.stream)
        state.streams[self.stream] = ranked
        note = "" if entities else "no entity matched: seeded by passages only"
        state.record(self.name, params, len(ranked), started, note)


def walk_passages(
    graph: PassageGraph,
    entities: dict[int, float],
    passages: dict[str, float],
    weights: tuple[float, float],
    pool: int,
    stream: str,
) -> list[ContextItem]:
    """The ``pool`` passages of most PageRank mass from the reset :func:`mix_reset` makes of ``entities`` and
    ``passages`` (``weights``: passage weight, damping), as items of ``stream``; a seeded passage without a
    vertex keeps ``(1 − damping)`` × its reset share."""
    passage_weight, damping = weights
    reset, off_graph = mix_reset(entities, passages, graph, passage_weight)
    ranks = graph.walk.personalized(reset, damping).tolist()
    scores = {graph.passage_ids[i]: ranks[graph.n_entities + i] for i in range(len(graph.passage_ids))}
    scores.update({chunk_id: (1.0 - damping) * share for chunk_id, share in off_graph.items()})
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])[:pool]
    return [
        ContextItem(kind="chunk", id=cid, text="", score=s, chunk_ids=[cid], scores={stream: s}) for cid, s in ranked
    ]
