"""The reranker slot of a query: the protocol every reranker meets, and how the configured one is built.

Rerankers live in :mod:`kgrag.models.rerankers` (they call models) and are chosen by name through
``KINDS["reranker"]`` (``rerank.provider``), each with its ``[rerank.<name>]`` settings; a recipe adds a
:class:`~kgrag.retrieval.steps.rerank.Rerank` step and the query context supplies whichever reranker the
workspace configured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from kgrag.config.rerank import RerankConfig
from kgrag.core.context import ContextItem
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.models.rerankers.base import RerankResources
from kgrag.models.rerankers.basic import WordOverlapReranker

__all__ = ["RERANKERS", "Reranker", "RerankerFactory", "WordOverlapReranker", "create_reranker"]


class Reranker(Protocol):
    """Reorders (and may cut) candidates for a query; returns at most ``k`` items, best first."""

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]: ...


RerankerFactory = Callable[[Any, RerankResources], Reranker]
"""``factory(settings, resources) -> Reranker``: ``settings`` is the entry's validated ``[rerank.<name>]``
table (an instance of the settings model it declares)."""
RERANKERS: RegistryKind[RerankerFactory] = RegistryKind("reranker")


def create_reranker(
    config: RerankConfig, resources: RerankResources, registry: Registry[RerankerFactory] | None = None
) -> Reranker:
    """The reranker ``config.provider`` names, from ``registry`` (a workspace's; default: built-ins and
    plug-ins), given its ``[rerank.<name>]`` settings."""
    rerankers = registry or RERANKERS.new()
    name = config.provider
    settings = rerankers.settings(name, config.rerankers.get(name), f"rerank.{name}")
    reranker: Reranker = rerankers.create(name, settings, resources)
    return reranker
