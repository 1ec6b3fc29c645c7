"""Retrieval steps over the knowledge graph.

:class:`GraphLocalSearch` is the ``graph-local`` pipeline's search (see :mod:`kgrag.retrieval.graph_local`):
it yields chunk items ranked by graph provenance (text filled later by ``Hydrate``) followed by the
entity and relation items that led to them, each with the chunk ids it was extracted from.

The in-memory graph index is kept in ``env.extras["graph_index"]`` (one per workspace, reloaded when
the store changes), so the first graph query pays the load and later ones do not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kgrag.core.context import ContextItem
from kgrag.core.errors import KgragError
from kgrag.core.graph_records import EntityRecord
from kgrag.core.hot import HotValue
from kgrag.graph.index import GraphIndex, load_graph_index
from kgrag.graph.texts import entity_text, relation_text
from kgrag.retrieval.env import RetrievalEnv
from kgrag.retrieval.graph_local import LocalSearchParams, LocalSearchResult, local_search
from kgrag.retrieval.steps import QueryState

GRAPH_INDEX_KEY = "graph_index"
EMPTY_GRAPH_MESSAGE = (
    "this workspace has no knowledge graph yet; run `kgrag index` with a graph extractor "
    "(graph.extractor = nlp, llm or auto) to build one, then query again"
)


def graph_index(env: RetrievalEnv) -> GraphIndex:
    """The workspace's hot graph index, created on first use; fails clearly when the graph is empty."""
    hot = env.extras.get(GRAPH_INDEX_KEY)
    if not isinstance(hot, HotValue):
        store = env.store
        hot = HotValue(lambda: load_graph_index(store, env.embedder().name), store.generation)
        env.extras[GRAPH_INDEX_KEY] = hot
    index = hot.get()
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

    def run(self, state: QueryState, env: RetrievalEnv) -> None:
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
