"""Rerankers: reorder a pool of candidates against the original question, behind one registered interface.

Every reranker has ``rerank(query, items, k) -> list[ContextItem]`` (the ``Reranker`` protocol of
:mod:`kgrag.retrieval.rerank`, structural, so this layer need not import retrieval) and is built by a
factory ``(RerankConfig, RerankResources) -> Reranker`` registered in ``KINDS["reranker"]``; plug-ins join
through the ``kgrag.rerankers`` entry-point group and ``rerank.provider`` selects one.
"""

from kgrag.models.rerankers.base import RerankResources, reorder

__all__ = ["RerankResources", "reorder"]
