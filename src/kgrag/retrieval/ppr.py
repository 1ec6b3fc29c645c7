"""Personalized PageRank over the entity graph, scored back to passages (fast-graphrag, HippoRAG; see
``zeng-unbiased-eval`` and ``deg-rag`` in docs/references.md for why PPR and a clean graph help).

Seeds are the entities the question matches (entity-vector similarity plus typed names, as in
graph-local), each weighted by its match score and its *specificity* (an entity cited by few passages
says more than one cited everywhere). igraph's PRPACK solver, on one OpenMP thread
(:mod:`kgrag.graph.analysis.pagerank`: its worker threads cost several times the CPU on a busy
machine), spreads that mass over the weighted graph;
a passage scores the PageRank of the entities it mentions, each divided by how many passages mention
it, so multi-hop neighbours reached through the graph lift the passages that connect them.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from kgrag.retrieval.graph_steps import chunk_items, entity_item, query_seeds
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps import QueryState

SEEDS = 10
SPREAD_ENTITIES = 200
FACTS = 5


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
        view = env.igraph()
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
        top = np.argsort(-ranks, kind="stable")[:SPREAD_ENTITIES]  # ties: vertex order
        ranked = view.passages(index).scores(top, ranks[top], self.pool)
        state.streams["ppr"] = chunk_items([(c, 0, s) for c, s in ranked], "ppr")
        for item, (_, s) in zip(state.streams["ppr"], ranked, strict=True):
            item.score = item.scores["ppr"] = s
        facts = [(index.entities[view.ids[v]], float(ranks[v])) for v in top[:FACTS] if view.ids[v] in index.entities]
        state.streams["ppr_facts"] = [entity_item(pair, 0) for pair in facts]
        params = {"seeds": [index.entities[e].name for e, _ in seeds if e in index.entities], "damping": self.damping}
        state.record(self.name, params, len(ranked), started)
