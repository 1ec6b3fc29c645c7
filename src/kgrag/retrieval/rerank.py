"""The reranker slot of a query: the protocol every reranker meets, and how the configured one is built.

Rerankers live in :mod:`kgrag.models.rerankers` (they call models) and are chosen by name through
``KINDS["reranker"]`` (``rerank.provider``); a recipe adds a :class:`~kgrag.retrieval.steps.rerank.Rerank`
step and the query context supplies whichever reranker the workspace configured.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from kgrag.config.rerank import RerankConfig
from kgrag.core.builtins import new_registry
from kgrag.core.context import ContextItem
from kgrag.core.registry import Registry
from kgrag.models.rerankers.base import RerankResources
from kgrag.models.rerankers.basic import WordOverlapReranker

__all__ = ["Reranker", "WordOverlapReranker", "create_reranker"]


class Reranker(Protocol):
    """Reorders (and may cut) candidates for a query; returns at most ``k`` items, best first."""

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]: ...


def create_reranker(
    config: RerankConfig, resources: RerankResources, registry: Registry[Any] | None = None
) -> Reranker:
    """The reranker ``config.provider`` names, from ``registry`` (default: built-ins and plug-ins)."""
    reranker: Reranker = (registry or new_registry("reranker")).create(config.provider, config, resources)
    return reranker
