"""Merging per-chunk extractions into the stored graph.

Whatever the extractor, its output becomes *mentions* keyed by the normalised entity name; merged
entities and relations are then rebuilt from mentions (:mod:`kgrag.graph.build.aggregate`). One batch is one
transaction — the mentions of every chunk in it plus the per-chunk extraction marks — so a crash leaves
each chunk either fully merged or untouched, and the next run re-extracts exactly the untouched ones.

A chunk whose extraction failed gets an error mark and no mentions: it is retried on the next run, and
whatever an earlier successful extraction left for it stays until then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgrag.core.graph_records import EntityMention, RelationMention
from kgrag.documents import TokenCounter
from kgrag.graph.build.aggregate import FALLBACK_TYPE, GENERIC_LABEL
from kgrag.graph.build.lifecycle import RefreshStats, refresh_graph
from kgrag.graph.build.summarize import Summarizer
from kgrag.graph.normalize import entity_key
from kgrag.graph.types import ChunkExtraction
from kgrag.store.base import Store

MAX_ERROR_CHARS = 1000


@dataclass
class MergeStats:
    """Counts of one merge: chunks merged and failed, mentions written, items dropped as unusable."""

    chunks: int = 0
    failed: int = 0
    entity_mentions: int = 0
    relation_mentions: int = 0
    dropped: int = 0
    refresh: RefreshStats | None = None


def _clean_type(value: str) -> str:
    return " ".join(value.strip().lower().split()) or FALLBACK_TYPE


def to_mentions(extraction: ChunkExtraction) -> tuple[list[EntityMention], list[RelationMention], int]:
    """Mentions of one chunk, plus how many items were dropped (empty names, self-relations).

    A relation endpoint the extractor did not also list as an entity becomes a ``concept`` entity with
    no description, so every relation is backed by entity mentions in the same chunk.
    """
    chunk = extraction.chunk_id
    entities: list[EntityMention] = []
    seen: set[str] = set()
    dropped = 0
    for item in extraction.entities:
        key = entity_key(item.name)
        if not key:
            dropped += 1
            continue
        seen.add(key)
        entities.append(EntityMention(key, chunk, item.name.strip(), _clean_type(item.type), item.description.strip()))
    relations: list[RelationMention] = []
    for rel in extraction.relations:
        source, target = entity_key(rel.source), entity_key(rel.target)
        if not source or not target or source == target:
            dropped += 1
            continue
        for key, surface in ((source, rel.source), (target, rel.target)):
            if key not in seen:
                seen.add(key)
                entities.append(EntityMention(key, chunk, surface.strip(), FALLBACK_TYPE, ""))
        relations.append(
            RelationMention(
                source_key=source,
                target_key=target,
                chunk_id=chunk,
                label=rel.label.strip() or GENERIC_LABEL,
                description=rel.description.strip(),
                keywords=tuple(k.strip() for k in rel.keywords if k.strip()),
                weight=max(0.0, float(rel.weight)),
            )
        )
    return entities, relations, dropped


def write_extractions(store: Store, extractions: Sequence[ChunkExtraction], extractor_name: str) -> MergeStats:
    """Write mentions and extraction marks of a batch in one transaction (no aggregation)."""
    stats = MergeStats()
    with store.transaction():  # read which chunks still exist inside it: a removal cannot slip in between
        alive = {c.id for c in store.chunks.get_many([x.chunk_id for x in extractions])}
        succeeded = [x.chunk_id for x in extractions if x.error is None and x.chunk_id in alive]
        store.graph.clear_chunk_mentions(succeeded)
        for extraction in extractions:
            if extraction.chunk_id not in alive:
                continue  # removed while it was being extracted
            if extraction.error is not None:
                store.graph.mark_extracted(
                    extraction.chunk_id, extractor_name, extraction.error[:MAX_ERROR_CHARS] or "error", 0, 0
                )
                stats.failed += 1
                continue
            entities, relations, dropped = to_mentions(extraction)
            store.graph.add_entity_mentions(entities)
            store.graph.add_relation_mentions(relations)
            store.graph.mark_extracted(extraction.chunk_id, extractor_name, None, len(entities), len(relations))
            stats.chunks += 1
            stats.entity_mentions += len(entities)
            stats.relation_mentions += len(relations)
            stats.dropped += dropped
    return stats


def merge_extractions(
    store: Store,
    extractions: Sequence[ChunkExtraction],
    extractor_name: str,
    summarizer: Summarizer,
    *,
    counter: TokenCounter | None = None,
    refresh: bool = True,
) -> MergeStats:
    """Write a batch of extractions, then rebuild the entities and relations they touched.

    ``refresh=False`` defers the rebuild (touched items stay flagged stale) so a caller merging many
    batches can rebuild once; the graph is consistent again after the next :func:`refresh_graph`.
    """
    stats = write_extractions(store, extractions, extractor_name)
    if refresh:
        stats.refresh = refresh_graph(store, summarizer, counter)
    return stats
