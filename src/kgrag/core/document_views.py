"""What a document accounts for in the index and what removing documents would take: the values the
documents views, the server and the CLI share."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DocumentSize:
    """How much of the index one document accounts for: its passages and the entities extracted from them."""

    chunks: int = 0
    entities: int = 0


@dataclass(frozen=True)
class RemovalPreview:
    """What removing a document would take with it: its passages, the entities and relations that have no
    other provenance, and whether community reports would describe a graph that changed."""

    chunks: int
    entities: int
    relations: int
    entities_touched: int
    communities_stale: bool
    taken_over: bool
    """A copy of the document takes it over: only the record goes."""
