"""kgrag: plain-RAG and knowledge-graph RAG over your documents, with honest side-by-side evaluation.

The public names below are imported on first access (PEP 562), so ``import kgrag`` — and with it
``kgrag --help`` — does not pay for pydantic, NumPy and the rest until they are used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgrag.config import KgragConfig, load_config
    from kgrag.core.errors import KgragError
    from kgrag.workspace import QueryResponse, Workspace

__version__ = "0.1.0"
__all__ = ["KgragConfig", "KgragError", "QueryResponse", "Workspace", "__version__", "load_config"]

_PUBLIC = {
    "KgragConfig": "kgrag.config",
    "load_config": "kgrag.config",
    "KgragError": "kgrag.core.errors",
    "QueryResponse": "kgrag.workspace",
    "Workspace": "kgrag.workspace",
}


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'kgrag' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(__all__)
