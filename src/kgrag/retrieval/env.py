"""Resources a pipeline may use, created lazily so a BM25 query never loads an embedding model."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgrag.config import KgragConfig
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store


@dataclass
class RetrievalEnv:
    """Shared by all steps of all pipelines in one workspace.

    ``extras`` holds resources later layers add (LLM client, graph index, reranker) under a name, so
    new steps do not need changes here.
    """

    store: Store
    config: KgragConfig
    embedder_factory: Callable[[], Embedder]
    extras: dict[str, Any] = field(default_factory=dict)
    query_cache_size: int = 2048
    _query_vectors: OrderedDict[str, np.ndarray] = field(default_factory=OrderedDict)

    def embedder(self) -> Embedder:
        return self.embedder_factory()

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a query, remembering recent ones (evaluation asks the same question of many pipelines)."""
        cached = self._query_vectors.get(text)
        if cached is not None:
            self._query_vectors.move_to_end(text)
            return cached
        vector = self.embedder().embed([text])[0]
        self._query_vectors[text] = vector
        if len(self._query_vectors) > self.query_cache_size:
            self._query_vectors.popitem(last=False)
        return vector
