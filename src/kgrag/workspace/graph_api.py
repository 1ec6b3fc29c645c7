"""``ws.graph``: the knowledge graph's size and shape, export and import (:class:`kgrag.graph.service.GraphService`)
and hand edits (:meth:`kgrag.denoise.service.DenoiseService.edit`)."""

from __future__ import annotations

from typing import Any

from kgrag.core.progress import Progress
from kgrag.graph.service import EntityDetail, ExportFormat, ExportResult, GraphService
from kgrag.workspace.components import Components

__all__ = ["EntityDetail", "ExportFormat", "ExportResult", "GraphAPI"]


class GraphAPI(GraphService):
    """Graph-level operations over this workspace's store and its query-time graph."""

    def __init__(self, parts: Components) -> None:
        super().__init__(parts.store, parts.path, lambda: parts.query_context.graph_index())
        self._parts = parts

    def edit(self, op: str, target: str, value: str = "", progress: Progress | None = None) -> dict[str, Any]:
        """One undoable hand edit (``rename``, ``describe``, ``merge``, ``split``, ``delete-relation``); its log
        line."""
        from kgrag.denoise.service import DenoiseService

        return DenoiseService(self._parts).edit(op, target, value, progress)

    def edits(self) -> list[dict[str, Any]]:
        """Every hand edit, oldest first, with its run's status (``applied``, or ``undone``)."""
        from kgrag.denoise.edits import history

        return history(self._parts.store)
