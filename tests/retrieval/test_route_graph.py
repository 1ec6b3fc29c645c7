"""The router's graph question: two named entities are a multi-hop question only when the graph links them
through a third one; named together in a passage, related directly or not linked at all, they are a single
fact for the local route. Phrases nested in a longer named phrase count once."""

from __future__ import annotations

from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.graph.index import GraphIndex
from kgrag.graph.normalize import entity_key
from kgrag.retrieval.steps.route_graph import Bridge, RouteGraph, outermost
from kgrag.retrieval.steps.router import heuristic_decision


def _graph(entities: dict[str, tuple[str, ...]], relations: list[tuple[str, str]]) -> RouteGraph:
    """A graph of ``name -> chunk ids`` and ``(name, name)`` relations."""
    records = {
        f"e{i}": EntityRecord(f"e{i}", entity_key(n), n, "concept", "", c) for i, (n, c) in enumerate(entities.items())
    }
    ids = {r.name: r.id for r in records.values()}
    links = [RelationRecord(f"r{i}", ids[a], ids[b], "with", "") for i, (a, b) in enumerate(relations)]
    adjacency: dict[str, list[str]] = {}
    for link in links:
        adjacency.setdefault(link.source_id, []).append(link.id)
        adjacency.setdefault(link.target_id, []).append(link.id)
    by_key = {r.key: r.id for r in records.values()}
    return RouteGraph(GraphIndex(records, {r.id: r for r in links}, by_key, adjacency))


GRAPH = _graph(
    {"Osprey": ("c1",), "Heron": ("c2",), "Kestrel": ("c1", "c2"), "Shale": ("c3",), "Lisbon": ("c4",)},
    [("Osprey", "Kestrel"), ("Kestrel", "Heron"), ("Shale", "Kestrel")],
)


def test_two_entities_linked_through_a_third_are_a_bridge() -> None:
    assert GRAPH.bridge(["Osprey", "Heron"]) == Bridge("Osprey", "Kestrel", "Heron")


def test_entities_named_together_related_directly_or_unlinked_are_not() -> None:
    assert GRAPH.bridge(["Osprey", "Kestrel"]) is None  # related directly (and named together in c1)
    assert GRAPH.bridge(["Shale", "Kestrel"]) is None  # related directly
    assert GRAPH.bridge(["Osprey", "Lisbon"]) is None  # nothing links them: the graph has nothing to walk
    together = _graph(
        {"Osprey": ("c1",), "Heron": ("c1",), "Kestrel": ("c2",)}, [("Osprey", "Kestrel"), ("Kestrel", "Heron")]
    )
    assert together.bridge(["Osprey", "Heron"]) is None  # one passage names both: a single fact


def test_a_phrase_inside_a_longer_named_phrase_counts_once() -> None:
    assert outermost(["type", "named type aliases", "type aliases", "Pydantic", "Pydantic version"]) == [
        "named type aliases",
        "Pydantic version",
    ]
    assert outermost(["data", "metadata"]) == ["metadata", "data"]  # whole words only


def test_the_heuristics_route_by_the_bridge() -> None:
    route, reason, label = heuristic_decision("Does Osprey send alerts to Heron by default?", GRAPH)
    assert (route, label) == ("multi-hop", "linked via a third entity") and "Osprey – Kestrel – Heron" in reason
    route, reason, label = heuristic_decision("Does Osprey store telemetry in Kestrel?", GRAPH)
    assert (route, label) == ("local", "single fact") and "Osprey" in reason and "Kestrel" in reason
    assert heuristic_decision("How does the Osprey outage affect Heron?", GRAPH)[:3:2] == ("multi-hop", "multi-hop")
    assert heuristic_decision("What are the main themes across the reports?", GRAPH)[0] == "global"
    assert heuristic_decision("Where is Lisbon?", GRAPH)[2] == "single fact"
