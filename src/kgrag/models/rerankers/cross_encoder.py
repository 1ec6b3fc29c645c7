"""A sentence-transformers ``CrossEncoder`` reranker (any model name or local path).

No cross-encoder weights ship with kgrag; point ``[rerank.cross-encoder] model`` at a downloaded model directory (or a
hub name where downloads are allowed). The model loads on the first query, once, under a lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgrag.core.context import ContextItem
from kgrag.core.errors import ConfigError, ModelError
from kgrag.core.lazy import Lazy
from kgrag.models.rerankers.base import RerankResources, reorder
from kgrag.models.rerankers.settings import CrossEncoderSettings
from kgrag.models.torch_threads import TORCH_THREADS


def _load(model: str) -> Any:
    try:
        from sentence_transformers import CrossEncoder
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ModelError("the cross-encoder reranker needs sentence-transformers (pip install 'kgrag[local]')") from exc
    try:
        return CrossEncoder(model)
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot load cross-encoder {model!r}: {exc}") from exc


class CrossEncoderReranker:
    """Scores (question, passage) pairs jointly; the strongest reranker when weights are available."""

    def __init__(self, model: str, loader: Any = _load) -> None:
        self.model = model
        self._model = Lazy(lambda: loader(model))

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        if not items:
            return []
        model = self._model.get()
        with TORCH_THREADS.threads(None):  # torch's own count, never a query embedding's single thread
            scores = model.predict([(query, item.text) for item in items])
        return reorder(items, [float(s) for s in scores], k)


def cross_encoder_reranker(settings: CrossEncoderSettings, resources: RerankResources) -> CrossEncoderReranker:
    if not settings.model:
        raise ConfigError(
            "rerank.provider = 'cross-encoder' needs rerank.cross-encoder.model (a model name or local path)"
        )
    return CrossEncoderReranker(settings.model)
