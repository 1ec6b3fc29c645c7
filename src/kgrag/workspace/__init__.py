"""The workspace: a thin facade (:class:`Workspace`) over a composition root (:class:`Components`) and
the sub-APIs the CLI, the server and users share."""

from kgrag.generation import QueryResponse
from kgrag.workspace.components import Components
from kgrag.workspace.facade import DB_FILE_NAME, Workspace, resolve_workspace_dir

__all__ = ["DB_FILE_NAME", "Components", "QueryResponse", "Workspace", "resolve_workspace_dir"]
