"""The workspace: a thin facade (:class:`Workspace`) over a composition root (:class:`Components`) and
the sub-APIs the CLI, the server and users share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgrag.workspace.components import Components
from kgrag.workspace.facade import DB_FILE_NAME, Workspace, resolve_workspace_dir

if TYPE_CHECKING:
    from kgrag.generation import QueryResponse

__all__ = ["DB_FILE_NAME", "Components", "QueryResponse", "Workspace", "resolve_workspace_dir"]


def __getattr__(name: str) -> Any:
    """``QueryResponse`` resolves on first use: importing the generation layer here would make every
    command that opens a workspace (``kgrag status``) load the answer path it never runs."""
    if name == "QueryResponse":
        from kgrag.generation import QueryResponse

        return QueryResponse
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
