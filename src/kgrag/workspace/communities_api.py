"""``ws.communities``: build the community hierarchy and its reports
(:func:`kgrag.indexing.communities_build.build_communities`) and read them back
(:class:`kgrag.communities.service.CommunitiesService`)."""

from __future__ import annotations

from kgrag.communities.service import SIZES_PLOT, CommunitiesService
from kgrag.core.progress import Progress
from kgrag.indexing.communities_build import BuildResult, build_communities
from kgrag.workspace.components import Components

__all__ = ["SIZES_PLOT", "BuildResult", "CommunitiesAPI"]


class CommunitiesAPI(CommunitiesService):
    """Communities of this workspace's graph."""

    def __init__(self, parts: Components) -> None:
        super().__init__(parts)
        self._components = parts

    def build(self, *, rebuild: bool = False, progress: Progress | None = None) -> BuildResult:
        """Detect communities if the graph changed (``rebuild``: always) and write missing reports, under
        the workspace's writer lock (a running ``kgrag index`` finishes first)."""
        return build_communities(self._components, rebuild=rebuild, progress=progress)
