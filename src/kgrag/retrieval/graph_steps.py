"""Retrieval steps over the knowledge graph.

:class:`GraphLocalSearch` is the ``graph-local`` pipeline's search (see :mod:`kgrag.retrieval.graph_local`):
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
from kgrag.core.graph_records import EntityRecord
from kgrag.graph.index import GraphIndex
from kgrag.graph.texts import entity_text, relation_text
from kgrag.retrieval.graph_local import LocalSearchParams, LocalSearchResult, local_search
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.requirements import EMPTY_GRAPH_MESSAGE
from kgrag.retrieval.steps import QueryState


def graph_index(ctx: QueryContext) -> GraphIndex:
    """The workspace's hot graph index; fails clearly when the graph is empty (a recipe that forgot to
    declare ``requires={"graph"}`` still gets the actionable message)."""
    index = ctx.graph_index()
    if index.empty:
        raise KgragError(EMPTY_GRAPH_MESSAGE)
    return index


def _entity_item(scored: tuple[EntityRecord, float], hop: int) -> ContextItem:
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


def _items(result: LocalSearchResult, index: GraphIndex, k: int) -> list[ContextItem]:
    """Top-k chunks, then the selected entities, their neighbours and relations."""
    items = [
        ContextItem(
            kind="chunk",
            id=cid,
            text="",
            score=float(count),
            chunk_ids=[cid],
            scores={"graph_provenance": float(count), "graph_entity": best},
        )
        for cid, count, best in result.chunks[:k]
    ]
    items.extend(_entity_item(pair, 0) for pair in result.entities)
    items.extend(_entity_item(pair, 1) for pair in result.neighbours)
    names = {eid: e.name for eid, e in index.entities.items()}
    for relation, weight in result.relations:
        items.append(
            ContextItem(
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
        )
    return items


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
        state.items = _items(result, index, state.k)
        state.streams["graph_chunks"] = [item for item in state.items if item.kind == "chunk"]
        note = "" if vector is not None else "no entity vectors: matched entity names only"
        state.record(
            self.name,
            {
                "top_entities": self.params.top_entities,
                "keywords": result.keywords[:12],
                "entities": len(result.entities),
                "relations": len(result.relations),
                "neighbours": len(result.neighbours),
            },
            len(state.items),
            started,
            note,
        )
