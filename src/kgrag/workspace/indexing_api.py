"""``ws.indexing``: index files, estimate what indexing would cost, re-embed, remove documents
(:class:`kgrag.indexing.service.IndexingService`)."""

from __future__ import annotations

from kgrag.indexing.service import LEXICAL_ONLY, IndexingService

__all__ = ["LEXICAL_ONLY", "IndexingAPI"]


class IndexingAPI(IndexingService):
    """Every write path from files to the index, over this workspace's parts (built with its ``Components``)."""
