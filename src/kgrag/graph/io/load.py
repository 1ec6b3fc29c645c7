"""Loading a whole, already-merged graph into the store (imports), with its provenance.

Extraction builds entities bottom-up from mentions and lets :mod:`kgrag.graph.build.aggregate` derive the
merged fields. An import instead arrives with the merged fields decided (LightRAG's descriptions, our
own exported ones), so this module writes the mentions *and* saves the given aggregates verbatim —
no re-voting, no summarising — which is what makes an import faithful and a round trip exact.

Provenance must point to real chunks (the schema enforces it), so :func:`resolve_provenance` drops
mentions of unknown chunks and keeps items left with none through one placeholder chunk whose text
lists them: no node or edge is lost, and the placeholder is easy to spot and to delete.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from kgrag.core.graph_ids import entity_id_for_key, relation_id_for_pair
from kgrag.core.graph_records import EntityMention, EntityRecord, RelationMention, RelationRecord
from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus
from kgrag.documents.records import content_hash
from kgrag.store.base import Store


@dataclass(frozen=True)
class EntitySpec:
    """An entity to load: its merged fields and the per-chunk mentions behind them."""

    key: str
    name: str
    type: str
    description: str
    mentions: tuple[EntityMention, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RelationSpec:
    """A relation to load between two entity keys, with merged fields and mentions."""

    source_key: str
    target_key: str
    label: str
    description: str
    keywords: tuple[str, ...] = ()
    weight: float = 1.0
    mentions: tuple[RelationMention, ...] = ()


@dataclass(frozen=True)
class Placeholder:
    """Where items without a known source chunk are kept: one document with one chunk."""

    doc_id: str
    chunk_id: str
    title: str


@dataclass
class ProvenanceResult:
    """Specs with only loadable mentions, plus what had to be dropped or re-homed."""

    entities: list[EntitySpec]
    relations: list[RelationSpec]
    dangling_chunk_ids: set[str] = field(default_factory=set)
    skipped_mentions: int = 0
    placeholder_entities: int = 0
    placeholder_relations: int = 0
    placeholder_lines: list[str] = field(default_factory=list)


def _line(title: str, description: str) -> str:
    return f"{title}: {' '.join(description.split())}".rstrip(": ")


def resolve_provenance(
    entities: Sequence[EntitySpec], relations: Sequence[RelationSpec], known: set[str], placeholder: Placeholder
) -> ProvenanceResult:
    """Keep mentions of ``known`` chunks; items left without one get a mention on the placeholder."""
    result = ProvenanceResult(entities=[], relations=[])
    names = {spec.key: spec.name for spec in entities}
    for entity in entities:
        kept = tuple(m for m in entity.mentions if m.chunk_id in known)
        _count_dropped(result, [m.chunk_id for m in entity.mentions if m.chunk_id not in known])
        if not kept:
            result.placeholder_entities += 1
            result.placeholder_lines.append(_line(entity.name, entity.description))
            kept = (EntityMention(entity.key, placeholder.chunk_id, entity.name, entity.type, entity.description),)
        result.entities.append(replace(entity, mentions=kept))
    for relation in relations:
        kept_r = tuple(m for m in relation.mentions if m.chunk_id in known)
        _count_dropped(result, [m.chunk_id for m in relation.mentions if m.chunk_id not in known])
        if not kept_r:
            result.placeholder_relations += 1
            title = (
                f"{names.get(relation.source_key, relation.source_key)} -- "
                f"{names.get(relation.target_key, relation.target_key)}"
            )
            result.placeholder_lines.append(_line(title, relation.description))
            kept_r = (
                RelationMention(
                    relation.source_key,
                    relation.target_key,
                    placeholder.chunk_id,
                    relation.label,
                    relation.description,
                    relation.keywords,
                    relation.weight,
                ),
            )
        result.relations.append(replace(relation, mentions=kept_r))
    return result


def _count_dropped(result: ProvenanceResult, chunk_ids: list[str]) -> None:
    result.skipped_mentions += len(chunk_ids)
    result.dangling_chunk_ids.update(chunk_ids)


def write_placeholder(store: Store, placeholder: Placeholder, lines: Sequence[str]) -> None:
    """Create (or refresh) the placeholder document and its single chunk listing the kept items."""
    text = "\n".join([f"{placeholder.title}. Graph items kept without a source chunk:", *lines])
    store.documents.upsert(
        DocumentRecord(
            id=placeholder.doc_id,
            source=f"kgrag-placeholder:{placeholder.doc_id}",
            title=placeholder.title,
            content_hash=content_hash(text),
            status=DocumentStatus.CHUNKED,
            n_chars=len(text),
            metadata={"placeholder": "true"},
            updated_at=time.time(),
        )
    )
    store.chunks.replace_for_document(
        placeholder.doc_id,
        [
            ChunkRecord(
                id=placeholder.chunk_id,
                doc_id=placeholder.doc_id,
                ord=0,
                char_start=0,
                char_end=len(text),
                text=text,
                n_tokens=len(text.split()),
                text_hash=content_hash(text),
            )
        ],
    )


def load_graph(store: Store, entities: Sequence[EntitySpec], relations: Sequence[RelationSpec]) -> None:
    """Write mentions and the given aggregates (in the caller's transaction).

    Every relation endpoint must be among ``entities`` or already stored; chunks must exist.
    """
    store.graph.add_entity_mentions([m for spec in entities for m in spec.mentions])
    store.graph.save_entities(
        [
            EntityRecord(
                id=entity_id_for_key(spec.key),
                key=spec.key,
                name=spec.name,
                type=spec.type,
                description=spec.description,
                metadata=dict(spec.metadata),
            )
            for spec in entities
        ]
    )
    store.graph.add_relation_mentions([m for spec in relations for m in spec.mentions])
    records = []
    for spec in relations:
        a, b = sorted((entity_id_for_key(spec.source_key), entity_id_for_key(spec.target_key)))
        records.append(
            RelationRecord(
                id=relation_id_for_pair(a, b),
                source_id=a,
                target_id=b,
                label=spec.label,
                description=spec.description,
                keywords=spec.keywords,
                weight=spec.weight,
            )
        )
    store.graph.save_relations(records)


def chunks_unchanged(store: Store, doc_id: str, chunks: Sequence[ChunkRecord]) -> bool:
    """True when the stored chunks of ``doc_id`` are exactly ``chunks`` (ids, order, text)."""
    stored = [(c.id, c.ord, c.text_hash) for c in store.chunks.for_document(doc_id)]
    return stored == [(c.id, c.ord, c.text_hash) for c in chunks]


def mark_imported(
    store: Store,
    chunk_ids: Iterable[str],
    extractor: str,
    entities: Sequence[EntitySpec],
    relations: Sequence[RelationSpec],
) -> None:
    """Record the import as the extraction of each chunk (so status pages count them as extracted)."""
    n_entities: dict[str, int] = {}
    n_relations: dict[str, int] = {}
    for spec in entities:
        for m in spec.mentions:
            n_entities[m.chunk_id] = n_entities.get(m.chunk_id, 0) + 1
    for rel in relations:
        for rm in rel.mentions:
            n_relations[rm.chunk_id] = n_relations.get(rm.chunk_id, 0) + 1
    for chunk_id in dict.fromkeys(chunk_ids):
        store.graph.mark_extracted(chunk_id, extractor, None, n_entities.get(chunk_id, 0), n_relations.get(chunk_id, 0))
