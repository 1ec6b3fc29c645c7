"""kgrag: plain-RAG and knowledge-graph RAG over your documents, with honest side-by-side evaluation."""

from kgrag.config import KgragConfig, load_config
from kgrag.core.errors import KgragError
from kgrag.workspace import QueryResponse, Workspace

__version__ = "0.1.0"
__all__ = ["KgragConfig", "KgragError", "QueryResponse", "Workspace", "__version__", "load_config"]
