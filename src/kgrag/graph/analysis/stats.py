"""Graph size and shape statistics, as reported before/after denoising and by ``kgrag graph stats``.

The numbers follow the graph tables of feldt-hellstrom-2026 and deg-rag (docs/references.md):
nodes, edges, average degree, average clustering
coefficient and connected components, plus what helps judge a noisy graph (isolated nodes, hubs, the
degree distribution and the entity-type histogram).

Conventions, so numbers compare across tools:

* average degree is ``2·E / N`` on the stored graph (parallel relations, if any, each count);
* the clustering coefficient is igraph's ``transitivity_avglocal_undirected(mode="zero")`` on the
  *simplified* graph (no loops, no parallel edges): the mean of local clustering over **all** nodes,
  nodes of degree < 2 counting as 0 (networkx's ``average_clustering`` convention). igraph's
  ``mode="nan"`` would instead average only over nodes of degree >= 2 and give a larger number;
* components are weakly connected components of the undirected graph; isolated nodes have degree 0.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from typing_extensions import TypedDict

if TYPE_CHECKING:  # igraph loads when stats are computed, not when GraphStats is named (e.g. a report type)
    import igraph as ig

    from kgrag.store.base import Store

DEFAULT_TOP_HUBS = 10
CLUSTERING_CONVENTION = "avg local clustering over all nodes, degree<2 counted as 0 (igraph mode='zero')"


@dataclass(frozen=True)
class Hub:
    """A high-degree entity."""

    name: str
    degree: int
    type: str = ""


class HubDict(TypedDict):
    name: str
    degree: int
    type: str


class GraphStatsDict(TypedDict):
    """:class:`GraphStats` as JSON: histograms as ``[value, count]`` lists, hubs as objects."""

    nodes: int
    edges: int
    average_degree: float
    average_clustering: float
    components: int
    largest_component: int
    median_component_size: float
    isolated_nodes: int
    max_degree: int
    degree_histogram: list[list[int]]
    component_size_histogram: list[list[int]]
    top_hubs: list[HubDict]
    type_histogram: list[list[str | int]]
    clustering_convention: str


@dataclass(frozen=True)
class GraphStats:
    """Size and shape of a graph; ``degree_histogram`` and ``type_histogram`` are (value, count) pairs."""

    nodes: int
    edges: int
    average_degree: float
    average_clustering: float
    components: int
    largest_component: int
    median_component_size: float
    isolated_nodes: int
    max_degree: int
    degree_histogram: list[tuple[int, int]] = field(default_factory=list)
    component_size_histogram: list[tuple[int, int]] = field(default_factory=list)
    top_hubs: list[Hub] = field(default_factory=list)
    type_histogram: list[tuple[str, int]] = field(default_factory=list)
    clustering_convention: str = CLUSTERING_CONVENTION

    def to_dict(self) -> GraphStatsDict:
        """JSON-ready: histograms become lists of ``[value, count]``, hubs become objects."""
        return GraphStatsDict(
            nodes=self.nodes,
            edges=self.edges,
            average_degree=self.average_degree,
            average_clustering=self.average_clustering,
            components=self.components,
            largest_component=self.largest_component,
            median_component_size=self.median_component_size,
            isolated_nodes=self.isolated_nodes,
            max_degree=self.max_degree,
            degree_histogram=[list(pair) for pair in self.degree_histogram],
            component_size_histogram=[list(pair) for pair in self.component_size_histogram],
            top_hubs=[HubDict(name=h.name, degree=h.degree, type=h.type) for h in self.top_hubs],
            type_histogram=[[name, count] for name, count in self.type_histogram],
            clustering_convention=self.clustering_convention,
        )

    def headline(self) -> dict[str, float | int]:
        """The numbers a before/after table shows."""
        return {
            "nodes": self.nodes,
            "edges": self.edges,
            "average degree": self.average_degree,
            "average clustering": self.average_clustering,
            "components": self.components,
            "largest component": self.largest_component,
            "isolated nodes": self.isolated_nodes,
        }


def _histogram(values: list[int]) -> list[tuple[int, int]]:
    return sorted(Counter(values).items())


def _hubs(graph: ig.Graph, degrees: list[int], top: int) -> list[Hub]:
    labels = graph.vs["label"] if "label" in graph.vs.attributes() else [str(v) for v in range(graph.vcount())]
    types = graph.vs["type"] if "type" in graph.vs.attributes() else [""] * graph.vcount()
    order = sorted(range(graph.vcount()), key=lambda v: (-degrees[v], labels[v]))
    return [Hub(name=labels[v], degree=degrees[v], type=types[v]) for v in order[:top] if degrees[v] > 0]


def stats_of_igraph(graph: ig.Graph, top_hubs: int = DEFAULT_TOP_HUBS) -> GraphStats:
    """Statistics of an undirected igraph graph (vertex attributes ``label`` and ``type`` if present).

    Exposed separately so callers holding a graph that is not (yet) stored, e.g. a denoising
    candidate, get the same numbers.
    """
    n = graph.vcount()
    degrees = list(graph.degree())
    simple = graph.copy()
    simple.simplify(multiple=True, loops=True)
    sizes = sorted(graph.connected_components().sizes()) if n else []
    types = graph.vs["type"] if n and "type" in graph.vs.attributes() else []
    return GraphStats(
        nodes=n,
        edges=graph.ecount(),
        average_degree=(2.0 * graph.ecount() / n) if n else 0.0,
        average_clustering=float(simple.transitivity_avglocal_undirected(mode="zero")) if n else 0.0,
        components=len(sizes),
        largest_component=sizes[-1] if sizes else 0,
        median_component_size=float(statistics.median(sizes)) if sizes else 0.0,
        isolated_nodes=sum(1 for d in degrees if d == 0),
        max_degree=max(degrees, default=0),
        degree_histogram=_histogram(degrees),
        component_size_histogram=_histogram(sizes),
        top_hubs=_hubs(graph, degrees, top_hubs),
        type_histogram=sorted(Counter(types).items(), key=lambda item: (-item[1], item[0])),
    )


def graph_stats(store: Store, top_hubs: int = DEFAULT_TOP_HUBS) -> GraphStats:
    """Statistics of the graph stored in ``store``."""
    from kgrag.graph.analysis.igraph_view import to_igraph

    graph, _ = to_igraph(store)
    return stats_of_igraph(graph, top_hubs)
