"""LightRAG's other modes on kgrag's graph (lundberg-2026): global search over relations, and the
round-robin merge that ``graph-hybrid`` and ``graph-mix`` use.

*Global*: the high-level keywords (themes, kinds of relationship) are embedded and matched against the
relation vectors; the best relations, their two ends, and the chunks those relations cite, ranked by
provenance count (ties: summed similarity of the citing relations). *Round robin*: chunk streams are
interleaved one item at a time, first occurrence wins, so each mode contributes its best passages
before any mode contributes its second best; facts from every mode follow, de-duplicated.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from pydantic import JsonValue

from kgrag.core.context import ContextItem
from kgrag.core.graph_records import RelationRecord
from kgrag.graph.index import GraphIndex
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.graph import chunk_items, entity_item, graph_index, relation_item


@dataclass(frozen=True)
class GraphGlobalSearch:
    """High-level keywords → relation vectors → relations, their ends and their chunks."""

    top_relations: int = 20
    name: str = "graph_global"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        index = graph_index(env)
        text = " ".join(state.keywords.get("high") or []) or state.query
        relations, note = _match_relations(index, env.embed_query(text), self.top_relations)
        citations: dict[str, int] = {}
        support: dict[str, float] = {}
        for relation, score in relations:
            for chunk_id in relation.chunk_ids:
                citations[chunk_id] = citations.get(chunk_id, 0) + 1
                support[chunk_id] = support.get(chunk_id, 0.0) + score
        ranked = sorted(citations, key=lambda c: (-citations[c], -support[c]))[: 2 * state.k]
        state.streams["graph_global"] = chunk_items([(c, citations[c], support[c]) for c in ranked], "graph_global")
        ends: dict[str, float] = {}
        for relation, score in relations:
            for end in (relation.source_id, relation.target_id):
                ends[end] = max(ends.get(end, 0.0), score)
        facts = [relation_item(r, s, index) for r, s in relations]
        facts += [entity_item((index.entities[e], s), 1) for e, s in ends.items() if e in index.entities]
        state.streams["graph_global_facts"] = facts
        state.record(self.name, {"keywords": text, "relations": len(relations)}, len(ranked), started, note)


def _match_relations(
    index: GraphIndex, vector: np.ndarray, limit: int
) -> tuple[list[tuple[RelationRecord, float]], str]:
    """Relations nearest the keywords: by relation vectors when the graph has them, else (the default
    ``embed-graph`` embeds entities only) relations of the nearest entities, scored by their ends' mean
    similarity, so global search still works, coarser, on every graph."""
    if len(index.relation_vectors):
        hits = index.relation_vectors.search(vector, limit)
        return [(index.relations[h.id], h.score) for h in hits if h.id in index.relations], ""
    near = {h.id: h.score for h in index.entity_vectors.search(vector, limit)}
    scored = [
        (r, (near.get(r.source_id, 0.0) + near.get(r.target_id, 0.0)) / 2) for r in index.relations_of(list(near))
    ]
    ranked = sorted(scored, key=lambda pair: (-pair[1], -pair[0].weight))[:limit]
    return ranked, "no relation vectors: relations of the nearest entities"


def _round_robin(lists: list[list[ContextItem]]) -> list[ContextItem]:
    merged: dict[str, ContextItem] = {}
    for position in range(max((len(lst) for lst in lists), default=0)):
        for lst in lists:
            if position < len(lst):
                merged.setdefault(f"{lst[position].kind}:{lst[position].id}", lst[position])
    return list(merged.values())


@dataclass(frozen=True)
class RoundRobin:
    """``state.items`` = chunk streams interleaved, then the fact streams interleaved (de-duplicated)."""

    chunk_streams: tuple[str, ...]
    fact_streams: tuple[str, ...] = ()
    name: str = "round_robin"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        chunks = _round_robin([state.streams.get(s, []) for s in self.chunk_streams])
        facts = _round_robin([state.streams.get(s, []) for s in self.fact_streams])
        state.items = chunks + facts
        params: dict[str, JsonValue] = {"chunk_streams": [*self.chunk_streams], "fact_streams": [*self.fact_streams]}
        state.record(self.name, params, len(state.items), started)


@dataclass(frozen=True)
class AppendStreams:
    """Append the items of ``streams`` (graph facts) after the ranked passages, de-duplicated."""

    streams: tuple[str, ...]
    name: str = "append_facts"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        seen = {f"{i.kind}:{i.id}" for i in state.items}
        for item in _round_robin([state.streams.get(s, []) for s in self.streams]):
            if f"{item.kind}:{item.id}" not in seen:
                seen.add(f"{item.kind}:{item.id}")
                state.items.append(item)
        state.record(self.name, {"streams": list(self.streams)}, len(state.items), started)
