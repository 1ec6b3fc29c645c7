"""Derive merged entities and relations from their mentions.

Every aggregate is a pure function of the mention list (which the store returns in document order, the
documents ordered by their content, not by their path), never of the order chunks were processed in: an
interrupted and resumed build, an incremental one and a clean one all end with the same graph, and so do the
same files indexed from another folder. Rules:

* display name: the most frequent surface form; ties go to the longest, then the alphabetically first;
* type: majority vote; ties prefer a specific type over the ``concept`` fallback, then alphabetical;
* description: distinct mention descriptions in document order, summarised when over the token limit;
* relation label: the most frequent; ties prefer a specific label over ``related_to``, then alphabetical;
  keywords: union in order of first appearance; weight: sum of mention weights.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from kgrag.core.graph_ids import entity_id_for_key
from kgrag.core.graph_records import EntityMention, EntityRecord, RelationMention, RelationRecord
from kgrag.documents import TokenCounter
from kgrag.graph.build.overrides import apply_overrides, overrides
from kgrag.graph.build.summarize import Summarizer
from kgrag.store.base import Store

FALLBACK_TYPE = "concept"
GENERIC_LABEL = "related_to"
DESCRIPTION_SEPARATOR = "\n"
_BATCH = 200
M = TypeVar("M", EntityMention, RelationMention)
R = TypeVar("R", EntityRecord, RelationRecord)


def display_name(surfaces: Iterable[str]) -> str:
    counts = Counter(s.strip() for s in surfaces if s.strip())
    if not counts:
        return ""
    return min(counts, key=lambda s: (-counts[s], -len(s), s))


def vote(values: Iterable[str], fallback: str) -> str:
    """Majority value; ties prefer anything over ``fallback``, then the alphabetically first."""
    counts = Counter(v for v in values if v)
    if not counts:
        return fallback
    return min(counts, key=lambda v: (-counts[v], v == fallback, v))


def distinct_descriptions(descriptions: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(d.strip() for d in descriptions if d and d.strip()))


def merge_descriptions(name: str, descriptions: Iterable[str], summarizer: Summarizer, counter: TokenCounter) -> str:
    """Join distinct descriptions; summarise when the result exceeds ``summarizer.max_tokens``."""
    parts = distinct_descriptions(descriptions)
    joined = DESCRIPTION_SEPARATOR.join(parts)
    if parts and counter.count(joined) > summarizer.max_tokens:
        return summarizer.summarize(name, parts)
    return joined


def aggregate_entity(
    entity_id: str, mentions: Sequence[EntityMention], summarizer: Summarizer, counter: TokenCounter
) -> EntityRecord:
    name = display_name(m.surface for m in mentions) or mentions[0].entity_key
    return EntityRecord(
        id=entity_id,
        key=mentions[0].entity_key,
        name=name,
        type=vote((m.type for m in mentions), FALLBACK_TYPE),
        description=merge_descriptions(name, (m.description for m in mentions), summarizer, counter),
        chunk_ids=tuple(dict.fromkeys(m.chunk_id for m in mentions)),
    )


def aggregate_relation(
    relation_id: str, mentions: Sequence[RelationMention], summarizer: Summarizer, counter: TokenCounter
) -> RelationRecord:
    first = mentions[0]
    source, target = sorted((entity_id_for_key(first.source_key), entity_id_for_key(first.target_key)))
    keywords: dict[str, str] = {}
    for mention in mentions:
        for keyword in mention.keywords:
            if keyword.strip():
                keywords.setdefault(keyword.strip().casefold(), keyword.strip())
    return RelationRecord(
        id=relation_id,
        source_id=source,
        target_id=target,
        label=vote((m.label for m in mentions), GENERIC_LABEL),
        description=merge_descriptions(
            f"{first.source_key} {first.target_key}", (m.description for m in mentions), summarizer, counter
        ),
        keywords=tuple(keywords.values()),
        weight=float(sum(m.weight for m in mentions)),
        chunk_ids=tuple(dict.fromkeys(m.chunk_id for m in mentions)),
    )


def _rebuilt(
    found: dict[str, list[M]], build: Callable[[str, list[M]], R], summarizer: Summarizer
) -> tuple[list[R], list[str]]:
    """Aggregates of ``found`` (orphans skipped) and the ids whose summary was a fallback.

    A fallback summary (the LLM failed, or its reply was cut off) is stored, so the graph stays usable,
    but its id is returned to be flagged stale again: the next refresh retries it instead of keeping a
    value that a fault-free run would not have produced.
    """
    records: list[R] = []
    provisional: list[str] = []
    for item_id, mentions in found.items():
        if not mentions:
            continue
        before = summarizer.failures
        records.append(build(item_id, mentions))
        if summarizer.failures != before:
            provisional.append(item_id)
    return records, provisional


def recompute_stale(store: Store, summarizer: Summarizer, counter: TokenCounter | None = None) -> tuple[int, int]:
    """Rebuild every stale entity and relation from its mentions, one transaction per batch.

    Stale rows without mentions are orphans and are left to ``delete_orphans``; rows whose summary fell
    back stay flagged for the next refresh. Hand edits of names and descriptions still in force are laid
    over the rebuilt entities (:mod:`kgrag.graph.build.overrides`). Returns the numbers of entities and
    relations rebuilt.
    """
    counter = counter or TokenCounter.for_encoding()
    entity_ids = store.graph.stale_entity_ids()
    edits = overrides(store) if entity_ids else {}
    for start in range(0, len(entity_ids), _BATCH):
        found = store.graph.entity_mentions(entity_ids[start : start + _BATCH])
        records, retry = _rebuilt(found, lambda i, ms: aggregate_entity(i, ms, summarizer, counter), summarizer)
        with store.transaction():
            store.graph.save_entities(apply_overrides(records, edits))
            store.graph.mark_stale(retry, [])
    relation_ids = store.graph.stale_relation_ids()
    for start in range(0, len(relation_ids), _BATCH):
        found_r = store.graph.relation_mentions(relation_ids[start : start + _BATCH])
        relations, retry = _rebuilt(found_r, lambda i, ms: aggregate_relation(i, ms, summarizer, counter), summarizer)
        with store.transaction():
            store.graph.save_relations(relations)
            store.graph.mark_stale([], retry)
    return len(entity_ids), len(relation_ids)
