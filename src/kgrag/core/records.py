"""Plain records that cross the store boundary; every backend speaks these, not rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple


class DocumentStatus(StrEnum):
    """Where a document is in the indexing lifecycle; each step is resumable from the previous one."""

    PENDING = "pending"
    CHUNKED = "chunked"
    EMBEDDED = "embedded"
    INDEXED = "indexed"
    FAILED = "failed"


@dataclass(frozen=True)
class DocumentRecord:
    """A document as stored: identity, content hash (to skip unchanged files) and lifecycle status."""

    id: str
    source: str
    title: str
    content_hash: str
    status: DocumentStatus
    error: str | None = None
    n_chars: int = 0
    metadata: dict[str, str] = field(default_factory=dict)
    updated_at: float = 0.0


@dataclass(frozen=True)
class ChunkRecord:
    """A retrievable passage with exact provenance back into its document."""

    id: str
    doc_id: str
    ord: int
    char_start: int
    char_end: int
    text: str
    n_tokens: int
    text_hash: str


class ScoredId(NamedTuple):
    """One hit of a store-side search (e.g. BM25): the id and the backend's relevance score.

    A named tuple rather than a frozen dataclass: a qe or combined query makes ~450 of them (50 per
    search), and a tuple is built in about half the time and unpacks as ``(id, score)`` directly."""

    id: str
    score: float
