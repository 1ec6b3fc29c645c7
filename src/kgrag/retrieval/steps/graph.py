"""Retrieval steps over the knowledge graph.

:class:`GraphLocalSearch` is the ``graph-local`` pipeline's search (see :mod:`kgrag.retrieval.steps.graph_local`):
it yields chunk items ranked by graph provenance (text filled later by ``Hydrate``) followed by the
entity and relation items that led to them, each with the chunk ids it was extracted from.

The in-memory graph index is the query context's hot graph index (one per workspace, loaded once under
a lock and reloaded when the store changes), so the first graph query pays the load and later ones do
not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kgrag.core.context import ContextItem
from kgrag.core.errors import KgragError
from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.graph.index import GraphIndex
from kgrag.graph.texts import entity_text, relation_text
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.requirements import EMPTY_GRAPH_MESSAGE
from kgrag.retrieval.resources.stored import VECTOR_COUNT
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.budget import similarities
from kgrag.retrieval.steps.graph_local import (
    LocalSearchParams,
    LocalSearchResult,
    local_search,
    query_keywords,
    score_entities,
)


def graph_index(ctx: QueryContext) -> GraphIndex:
    """The workspace's hot graph index; fails clearly when the graph is empty (a recipe that forgot to
    declare ``requires={"graph"}`` still gets the actionable message)."""
    index = ctx.graph_index()
    if index.empty:
        raise KgragError(EMPTY_GRAPH_MESSAGE)
    return index


def query_seeds(ctx: QueryContext, query: str, limit: int) -> tuple[GraphIndex, list[tuple[str, float]]]:
    """The graph index and the ``limit`` entities that best match ``query`` (embedding similarity plus
    keyword boost), best first: the seeds graph walks (PageRank, paths) start from."""
    index = graph_index(ctx)
    vector = ctx.embed_query(query) if len(index.entity_vectors) else None
    matched = score_entities(index, vector, query_keywords(query), LocalSearchParams())
    ranked = sorted(((e, s) for e, s in matched.items() if e in index.entities), key=lambda kv: -kv[1])
    return index, ranked[:limit]


def entity_item(scored: tuple[EntityRecord, float], hop: int) -> ContextItem:
    """An entity as context: name, type and description, with its source chunks."""
    entity, score = scored
    return ContextItem(
        kind="entity",
        id=entity.id,
        text=entity_text(entity),
        score=float(score),
        chunk_ids=list(entity.chunk_ids),
        scores={"graph_entity": float(score)},
        metadata={"name": entity.name, "type": entity.type, "hop": hop},
    )


def break_ties(
    chunks: list[tuple[str, int, float]], k: int, env: QueryContext, query: str
) -> list[tuple[str, int, float]]:
    """Order the chunks tied with the k-th one (same citations and best entity score) by their own
    similarity to the query, so the cut is decided by relevance, not by id or insertion order."""
    if len(chunks) <= k or not env.get(VECTOR_COUNT):
        return chunks
    tie = chunks[k - 1][1:]
    start = next(i for i, c in enumerate(chunks) if c[1:] == tie)
    end = next((i for i in range(start, len(chunks)) if chunks[i][1:] != tie), len(chunks))
    group = env.store.chunks.get_many([c[0] for c in chunks[start:end]])
    items = [ContextItem(kind="chunk", id=c.id, text=c.text, score=0.0) for c in group]
    sims = dict(zip((i.id for i in items), similarities(items, env, query), strict=True))
    tied = sorted(chunks[start:end], key=lambda c: -(sims.get(c[0]) or 0.0))
    return chunks[:start] + tied + chunks[end:]


def chunk_items(chunks: list[tuple[str, int, float]], stream: str) -> list[ContextItem]:
    """Chunk candidates (text filled later by ``Hydrate``) from (id, citations, best entity score)."""
    return [
        ContextItem(
            kind="chunk",
            id=cid,
            text="",
            score=float(count),
            chunk_ids=[cid],
            scores={f"{stream}_provenance": float(count), "graph_entity": best},
        )
        for cid, count, best in chunks
    ]


def _items(result: LocalSearchResult, index: GraphIndex, k: int) -> list[ContextItem]:
    """Top-k chunks, then the selected entities, their neighbours and relations."""
    items = chunk_items(result.chunks[:k], "graph")
    items.extend(entity_item(pair, 0) for pair in result.entities)
    items.extend(entity_item(pair, 1) for pair in result.neighbours)
    items.extend(relation_item(relation, weight, index) for relation, weight in result.relations)
    return items


def relation_item(relation: RelationRecord, weight: float, index: GraphIndex) -> ContextItem:
    """A relation as context: its sentence, with its ends and source chunks."""
    ends = (relation.source_id, relation.target_id)
    names = {eid: index.entities[eid].name for eid in ends if eid in index.entities}
    return ContextItem(
        kind="relation",
        id=relation.id,
        text=relation_text(relation, names),
        score=float(weight),
        chunk_ids=list(relation.chunk_ids),
        scores={"graph_relation": float(weight)},
        metadata={
            "source": names.get(relation.source_id, ""),
            "target": names.get(relation.target_id, ""),
            "source_id": relation.source_id,
            "target_id": relation.target_id,
            "label": relation.label,
            "keywords": list(relation.keywords),
            "weight": relation.weight,
        },
    )


@dataclass(frozen=True)
class GraphLocalSearch:
    """Query → matching entities → their relations and neighbours → chunks by provenance count."""

    params: LocalSearchParams = field(default_factory=LocalSearchParams)
    name: str = "graph_local"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        index = graph_index(env)
        vector = env.embed_query(state.query) if len(index.entity_vectors) else None
        result = local_search(index, state.query, vector, self.params)
        result.chunks = break_ties(result.chunks, state.k, env, state.query)
        state.items = _items(result, index, state.k)
        state.streams["graph_chunks"] = [item for item in state.items if item.kind == "chunk"]
        state.streams["graph_local"] = chunk_items(result.chunks[: 2 * state.k], "graph")
        state.streams["graph_local_facts"] = [item for item in state.items if item.kind != "chunk"]
        note = "" if vector is not None else "no entity vectors: matched entity names only"
        state.record(
            self.name,
            {
                "top_entities": self.params.top_entities,
                "keywords": [*result.keywords[:12]],
                "entities": len(result.entities),
                "relations": len(result.relations),
                "neighbours": len(result.neighbours),
            },
            len(state.items),
            started,
            note,
        )
