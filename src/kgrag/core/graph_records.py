"""Graph records as stored: merged entities and relations, and their per-chunk mentions (provenance).

Aggregated fields (display name, type, description, weight, keywords) are *derived* from mentions, so
removing a document's chunks removes its mentions and the aggregates are recomputed from what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class EntityMention:
    """One entity as extracted from one chunk; ``entity_key`` is the normalised identity."""

    entity_key: str
    chunk_id: str
    surface: str
    type: str
    description: str


@dataclass(frozen=True)
class RelationMention:
    """One relation as extracted from one chunk, between two entity keys (stored unordered)."""

    source_key: str
    target_key: str
    chunk_id: str
    label: str
    description: str
    keywords: tuple[str, ...] = ()
    weight: float = 1.0


@dataclass(frozen=True)
class EntityRecord:
    """A merged entity. ``chunk_ids`` is its provenance."""

    id: str
    key: str
    name: str
    type: str
    description: str
    chunk_ids: tuple[str, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RelationRecord:
    """A merged relation between two entities (``source_id`` < ``target_id``; undirected)."""

    id: str
    source_id: str
    target_id: str
    label: str
    description: str
    keywords: tuple[str, ...] = ()
    weight: float = 1.0
    chunk_ids: tuple[str, ...] = ()
