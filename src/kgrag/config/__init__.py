"""The one configuration model of kgrag.

Values come from, in increasing priority: built-in defaults, the workspace's ``kgrag.toml``, then
``KGRAG_*`` environment variables (nested with ``__``, e.g. ``KGRAG_RETRIEVAL__K=10``), then explicit
overrides passed by code. Everything is read when :func:`load_config` runs, never at import time.

Every field carries a description; ``docs/configuration.md`` is generated from them
(``python -m kgrag.config > docs/configuration.md``) and a test fails when the file is stale.
Paper-derived defaults name their source paper by its key in ``docs/references.md``.

One module per section; this package re-exports them all.
"""

from kgrag.config.base import Section
from kgrag.config.chunking import ChunkingConfig
from kgrag.config.communities import CommunitiesConfig
from kgrag.config.denoise import DenoiseConfig
from kgrag.config.docs import configuration_markdown
from kgrag.config.documents import DocumentsConfig
from kgrag.config.embedding import EmbeddingConfig
from kgrag.config.evaluation import EvaluationConfig
from kgrag.config.generation import GenerationConfig
from kgrag.config.graph import GraphConfig
from kgrag.config.indexing import IndexingConfig
from kgrag.config.llm import LLMConfig
from kgrag.config.loading import CONFIG_FILE_NAME, default_toml, load_config
from kgrag.config.model import KgragConfig
from kgrag.config.rerank import RerankConfig
from kgrag.config.retrieval import PipelineBaseSettings, RetrievalConfig
from kgrag.config.server import ServerConfig
from kgrag.config.store import StoreConfig

__all__ = [
    "CONFIG_FILE_NAME",
    "ChunkingConfig",
    "CommunitiesConfig",
    "DenoiseConfig",
    "DocumentsConfig",
    "EmbeddingConfig",
    "EvaluationConfig",
    "GenerationConfig",
    "GraphConfig",
    "IndexingConfig",
    "KgragConfig",
    "LLMConfig",
    "PipelineBaseSettings",
    "RerankConfig",
    "RetrievalConfig",
    "Section",
    "ServerConfig",
    "StoreConfig",
    "configuration_markdown",
    "default_toml",
    "load_config",
]
