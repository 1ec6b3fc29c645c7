"""What extractors produce (per chunk) and what the merged graph stores (per entity / relation).

Extractors only ever emit :class:`ChunkExtraction`; merging those into the graph (identity, type
votes, description accumulation, provenance) is one shared step, whichever extractor ran.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kgrag.core.records import ChunkRecord


@dataclass(frozen=True)
class ExtractedEntity:
    """An entity mention as an extractor saw it in one chunk."""

    name: str
    type: str
    description: str


@dataclass(frozen=True)
class ExtractedRelation:
    """A relation between two entity names seen in one chunk (undirected for retrieval purposes)."""

    source: str
    target: str
    label: str
    description: str
    keywords: tuple[str, ...] = ()
    weight: float = 1.0


@dataclass
class ChunkExtraction:
    """Everything extracted from one chunk; ``error`` is set when the chunk failed (and is retried later).

    ``unit_end`` is False on every chunk but the last of a group the extractor read together (an LLM
    unit): the builder never commits a merge batch inside such a group, so a killed run leaves whole
    groups merged or untouched and the resumed run forms exactly the same groups (same calls, same graph).
    """

    chunk_id: str
    entities: list[ExtractedEntity] = field(default_factory=list)
    relations: list[ExtractedRelation] = field(default_factory=list)
    error: str | None = None
    unit_end: bool = True


class Extractor(Protocol):
    """Turns chunks into per-chunk extractions. ``name`` is recorded so a changed extractor re-runs."""

    name: str

    def extract(self, chunks: Sequence[ChunkRecord]) -> Iterator[ChunkExtraction]: ...


# An extractor may also set a class attribute ``chunkwise = True`` when each chunk's extraction depends on
# that chunk alone (spaCy NLP): an indexing engine may then split its input anywhere. Without it, an
# engine splits only between documents (extraction units never span documents).
