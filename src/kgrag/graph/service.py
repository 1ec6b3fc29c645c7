"""What ``ws.graph`` runs: the graph's size and shape, browsing, export and import over one store.

The service gets the store, the workspace directory (its writer lock) and where the query-time graph
comes from (``graph_index``, the workspace's hot in-memory graph) from the workspace; the graph modules
(igraph, matplotlib through the plots) are imported inside the methods that need them, so opening a
workspace for a query does not pay for them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from kgrag.core.progress import Progress
from kgrag.store.base import Store
from kgrag.store.index_lock import indexing_lock

if TYPE_CHECKING:
    from kgrag.core.community_records import CommunityRecord, CommunityReport
    from kgrag.graph.analysis.stats import GraphStats
    from kgrag.graph.browse import EntityView, Neighbourhood
    from kgrag.graph.index import GraphIndex
    from kgrag.graph.io.report import ImportReport
    from kgrag.graph.overview import OverviewQuery

GRAPHML_FILE_NAME = "graph.graphml"
OVERVIEWS_KEPT = 16
SYNONYM_LABEL = "same_as"  # the relation denoising links an alias to its entity with (docs/denoise.md)
ExportFormat = Literal["graphml", "neo4j"]


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: counts, the main file or directory, and the companion file if any."""

    entities: int
    relations: int
    path: Path
    companion: Path | None = None


@dataclass(frozen=True)
class EntityDetail:
    """One entity with what a reader asks next: other names it goes by (aliases denoising merged into it
    or linked to it), the passages it comes from, and the communities it belongs to with their reports.
    ``merged`` are the names merged into it that ``kgrag graph edit split`` can take back out."""

    entity: EntityView
    aliases: list[str]
    communities: list[tuple[CommunityRecord, CommunityReport | None]]
    merged: list[str] = field(default_factory=list)


class GraphService:
    """Graph-level operations over ``store``; ``graph_index`` gives the query-time graph (built once per
    store generation by its owner), ``directory`` is where the writer lock lives for a store without one."""

    def __init__(self, store: Store, directory: Path, graph_index: Callable[[], GraphIndex]) -> None:
        self._store = store
        self._directory = directory
        self._graph_index = graph_index
        self._overviews: OrderedDict[tuple[int, OverviewQuery], dict[str, Any]] = OrderedDict()
        self._overview_lock = threading.Lock()

    def counts(self) -> dict[str, int]:
        """Entities, relations and their mentions."""
        return self._store.graph.counts()

    def search_entities(self, text: str, limit: int = 20) -> list[EntityView]:
        """Entities whose name contains ``text``, best matches first (from the hot in-memory graph)."""
        from kgrag.graph.browse import search_entities

        return search_entities(self._graph_index(), text, limit)

    def neighbourhood(self, entity_id: str, depth: int = 1, limit: int = 50, offset: int = 0) -> Neighbourhood | None:
        """Entities within ``depth`` hops of ``entity_id`` (at most ``limit``, after skipping the first
        ``offset`` in rank order) and the relations among them; None when there is no such entity."""
        from kgrag.graph.browse import neighbourhood

        return neighbourhood(self._graph_index(), entity_id, depth, limit, offset)

    def overview(self, query: OverviewQuery) -> dict[str, Any]:
        """The whole graph (or its largest communities, when it exceeds ``query.max_nodes``) with a layout,
        as :func:`kgrag.graph.overview.graph_overview` draws it. Kept per store generation: the same view
        of an unchanged graph is computed once (its layout takes up to a second at 10⁴ entities)."""
        from kgrag.graph.overview import graph_overview

        key = (self._store.generation(), query)
        with self._overview_lock:
            if key in self._overviews:
                self._overviews.move_to_end(key)
                return self._overviews[key]
            communities = self._store.communities.communities()
            titles = {r.community_id: r.title for r in self._store.communities.reports()}
            found = graph_overview(self._graph_index(), communities, titles, query)
            self._overviews[key] = found
            while len(self._overviews) > OVERVIEWS_KEPT:
                self._overviews.popitem(last=False)
            return found

    def entity(self, entity_id: str) -> EntityDetail | None:
        """The entity ``entity_id`` with its aliases and communities (finest level first); None if unknown."""
        from kgrag.graph.browse import entity_view

        index = self._graph_index()
        record = index.entities.get(entity_id)
        if record is None:
            return None
        names = [index.entities[i].name for i in self._linked(entity_id) if i in index.entities]
        merged = sorted(set(self._store.denoise.merged_names(entity_id).values()), key=str.casefold)
        aliases = sorted({n for n in [*names, *merged] if n and n != record.name}, key=str.casefold)
        store = self._store
        groups = [c for c in store.communities.communities() if entity_id in c.entity_ids]
        groups.sort(key=lambda c: (c.level, c.id))
        reports = {r.community_id: r for r in store.communities.reports([c.id for c in groups])} if groups else {}
        found = [(c, reports.get(c.id)) for c in groups]
        return EntityDetail(entity_view(index, record), aliases, found, merged)

    def _linked(self, entity_id: str) -> list[str]:
        """Entities denoising linked to ``entity_id`` as the same thing (``same_as`` relations)."""
        return [
            r.target_id if r.source_id == entity_id else r.source_id
            for r in self._store.graph.relations_of([entity_id])
            if r.label == SYNONYM_LABEL
        ]

    def stats(self, top: int = 10) -> GraphStats:
        """Nodes, edges, degrees, clustering, components, hubs and entity types."""
        from kgrag.graph.analysis.stats import graph_stats

        return graph_stats(self._store, top)

    def export(self, fmt: ExportFormat, target: Path, *, companion: bool = True) -> ExportResult:
        """GraphML (``target`` a .graphml file or a directory; with a JSON companion holding chunks and
        mentions for a lossless re-import) or Neo4j CSV files with load scripts (``target`` a directory)."""
        if fmt == "neo4j":
            from kgrag.graph.io.neo4j import export_neo4j

            counts = export_neo4j(self._store, target)
            return ExportResult(counts["entities"], counts["relations"], target)
        from kgrag.graph.io.companion import companion_path
        from kgrag.graph.io.graphml import export_graphml

        path = target if target.suffix.lower() == ".graphml" else target / GRAPHML_FILE_NAME
        counts = export_graphml(self._store, path, with_companion=companion)
        side = companion_path(path) if companion else None
        return ExportResult(counts["entities"], counts["relations"], path, side)

    def import_lightrag(
        self,
        directory: Path,
        *,
        graphml: Path | None = None,
        chunks_file: Path | None = None,
        progress: Progress | None = None,
    ) -> ImportReport:
        """A LightRAG working directory's graph, chunks and provenance, in one transaction."""
        from kgrag.graph.io.lightrag.importer import import_lightrag

        with indexing_lock(self._directory, self._store, progress):
            return import_lightrag(self._store, directory, graphml=graphml, chunks_file=chunks_file)

    def import_graphml(
        self, path: Path, *, companion_file: Path | None = None, progress: Progress | None = None
    ) -> ImportReport:
        """A GraphML file (ours or another tool's), with our JSON companion when present."""
        from kgrag.graph.io.graphml import import_graphml

        with indexing_lock(self._directory, self._store, progress):
            return import_graphml(self._store, path, companion_file=companion_file)
