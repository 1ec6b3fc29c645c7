"""The graph is read from the store once per store generation, whatever forms the graph pipelines walk
(records and vectors, arcs, the igraph view, the passage graph): every pipeline that walks the graph runs
on one snapshot until a committed write, and the next query after a write reads the graph again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgrag import Workspace
from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.graph.snapshot import GraphSnapshot
from kgrag.store.base import Store

GRAPH_PIPELINES = ("graph-local", "ppr", "ppr-passages", "paths", "graph-mix", "graph-global")


class CountingGraph:
    """The store's graph repository, counting whole-graph reads."""

    def __init__(self, graph: Any) -> None:
        self._graph = graph
        self.reads = 0

    def entities(self, entity_ids: Sequence[str] | None = None) -> list[EntityRecord]:
        self.reads += entity_ids is None
        return list(self._graph.entities(entity_ids))

    def relations(self, relation_ids: Sequence[str] | None = None) -> list[RelationRecord]:
        self.reads += relation_ids is None
        return list(self._graph.relations(relation_ids))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)


class CountingStore:
    """A real store whose graph repository counts whole-graph reads; everything else passes through."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.graph = CountingGraph(store.graph)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _counting(ws: Workspace) -> CountingGraph:
    """Make ``ws``'s query context read through a counting store (before anything was loaded)."""
    ctx = ws.components.query_context
    counting = CountingStore(ws.store)
    ctx.store = counting  # type: ignore[assignment]
    return counting.graph


def test_graph_pipelines_of_one_generation_read_the_graph_once(graph_ws: Workspace) -> None:
    graph_ws.components.__dict__.pop("query_context", None)  # a fresh context: nothing loaded yet
    graph = _counting(graph_ws)
    for name in GRAPH_PIPELINES:
        assert graph_ws.retrieve("Who leads the Platform team?", name, 5).items, name
    assert graph.reads == 2  # entities and relations, once each, for every form of every pipeline
    snapshot = graph_ws.components.query_context.graph_snapshot()
    assert isinstance(snapshot, GraphSnapshot)
    assert snapshot.passage_graph.n_entities == snapshot.igraph.graph.vcount() == len(snapshot.index.entities)
    assert snapshot.arcs.entity_ids == list(snapshot.index.entities)  # igraph vertices, arcs: one order
    assert snapshot.igraph.ids == snapshot.arcs.entity_ids


def test_a_committed_write_gives_the_next_query_a_new_snapshot(graph_ws: Workspace) -> None:
    graph_ws.components.__dict__.pop("query_context", None)
    graph = _counting(graph_ws)
    graph_ws.retrieve("Who leads the Platform team?", "ppr", 5)
    before = graph_ws.components.query_context.graph_snapshot()
    factors = before.igraph.walk._factors
    assert list(factors) == [0.5]  # ppr's factorisation, kept with this generation's graph
    relation = graph_ws.store.graph.relations()[0]
    graph_ws.store.graph.save_relations([relation])  # the same relation again: still a committed write
    graph_ws.retrieve("Who leads the Platform team?", "ppr", 5)
    graph_ws.retrieve("Which team owns Osprey?", "ppr-passages", 5)
    assert graph.reads == 4  # one read before the write, one after it
    after = graph_ws.components.query_context.graph_snapshot()
    assert after is not before
    assert after.igraph.walk._factors is not factors and list(after.igraph.walk._factors) == [0.5]  # made again
