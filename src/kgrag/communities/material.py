"""What a report is written from: the community's entities and relations (level 0) or its children's
reports (higher levels), ranked and cut to a token budget, with short labels (E1, R1, C1) that the
report's findings cite and that map back to entity, relation and community ids.

Ranking is by weighted degree inside the community for entities and by aggregated weight for relations,
so what survives a tight budget is the community's core rather than whatever was extracted first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kgrag.core.community_records import CommunityRecord, CommunityReport
from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.store.base import Store

MAX_LINE_CHARS = 240  # one description sentence or two; longer ones are cut
MAX_CHUNK_IDS = 20


@dataclass
class GraphData:
    """The stored graph in memory, loaded once per report run (only when level-0 work exists)."""

    entities: dict[str, EntityRecord]
    by_entity: dict[str, list[RelationRecord]]

    @classmethod
    def load(cls, store: Store) -> GraphData:
        entities = {e.id: e for e in store.graph.entities()}
        by_entity: dict[str, list[RelationRecord]] = {}
        for relation in store.graph.relations():
            by_entity.setdefault(relation.source_id, []).append(relation)
            by_entity.setdefault(relation.target_id, []).append(relation)
        return cls(entities, by_entity)

    def inside(self, members: Sequence[str]) -> list[RelationRecord]:
        """Relations with both ends among ``members``, strongest first (ties by id)."""
        wanted = set(members)
        found = {
            r.id: r
            for m in members
            for r in self.by_entity.get(m, ())
            if r.source_id in wanted and r.target_id in wanted
        }
        return sorted(found.values(), key=lambda r: (-r.weight, r.id))


@dataclass
class Job:
    """One community to report on, with what its report is made from."""

    community: CommunityRecord
    entities: list[EntityRecord] = field(default_factory=list)  # ranked, level 0 (or trivial children)
    relations: list[RelationRecord] = field(default_factory=list)  # ranked, level 0
    children: list[CommunityReport] = field(default_factory=list)  # ranked, higher levels

    @property
    def level(self) -> int:
        return self.community.level


def level0_job(community: CommunityRecord, data: GraphData) -> Job:
    """Entities by weighted degree inside the community, relations by weight."""
    relations = data.inside(community.entity_ids)
    degree: dict[str, float] = {}
    for r in relations:
        degree[r.source_id] = degree.get(r.source_id, 0.0) + r.weight
        degree[r.target_id] = degree.get(r.target_id, 0.0) + r.weight
    entities = [data.entities[e] for e in community.entity_ids if e in data.entities]
    entities.sort(key=lambda e: (-degree.get(e.id, 0.0), -len(e.chunk_ids), e.id))
    return Job(community, entities=entities, relations=relations)


def chunk_provenance(entities: Sequence[EntityRecord], limit: int = MAX_CHUNK_IDS) -> tuple[str, ...]:
    """The chunks most of the community's entities come from (most shared first)."""
    counts: Counter[str] = Counter(c for e in entities for c in e.chunk_ids)
    return tuple(c for c, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit])


def merged_provenance(reports: Sequence[CommunityReport], limit: int = MAX_CHUNK_IDS) -> tuple[str, ...]:
    counts: Counter[str] = Counter(c for r in reports for c in r.chunk_ids)
    return tuple(c for c, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit])


def _line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_LINE_CHARS else flat[: MAX_LINE_CHARS - 1] + "…"


@dataclass
class Material:
    """The prompt text and the label → id map its citations resolve through."""

    text: str
    labels: dict[str, str]
    note: str


def _fit(lines: list[tuple[str, str, str]], budget: int, count: Callable[[str], int]) -> Material:
    kept: list[str] = []
    labels: dict[str, str] = {}
    used = 0
    for label, target, line in lines:
        cost = count(line) + 1
        if kept and used + cost > budget:
            continue
        kept.append(line)
        labels[label] = target
        used += cost
    return Material("\n".join(kept), labels, "")


def build_material(job: Job, budget: int, count: Callable[[str], int]) -> Material:
    """Labelled lines within ``budget`` tokens: entities and relations interleaved (so both survive a
    cut) at level 0, child reports best-rated first above it."""
    if job.children:
        lines = [
            (f"C{i}", r.community_id, f"[C{i}] {_line(r.title)} (rating {r.rating:g}): {_line(r.summary)}")
            for i, r in enumerate(job.children, start=1)
        ]
        lines += [(f"E{i}", e.id, f"[E{i}] {_line(e.name)}") for i, e in enumerate(job.entities, start=1)]
        material = _fit(lines, budget, count)
        material.note = "the reports of its sub-groups (C labels) and any members without a report (E labels)"
        return material
    names = {e.id: e.name for e in job.entities}
    entity_lines = [
        (f"E{i}", e.id, f"[E{i}] {_line(e.name)} ({e.type})" + (f": {_line(e.description)}" if e.description else ""))
        for i, e in enumerate(job.entities, start=1)
    ]
    relation_lines = [
        (
            f"R{i}",
            r.id,
            f"[R{i}] {names.get(r.source_id, '?')} — {r.label.replace('_', ' ')} — {names.get(r.target_id, '?')}"
            + (f": {_line(r.description)}" if r.description else ""),
        )
        for i, r in enumerate(job.relations, start=1)
    ]
    interleaved = [x for pair in zip(entity_lines, relation_lines, strict=False) for x in pair]
    longer = entity_lines if len(entity_lines) > len(relation_lines) else relation_lines
    interleaved += longer[min(len(entity_lines), len(relation_lines)) :]
    material = _fit(interleaved, budget, count)
    material.note = "the entities (E labels) and relations (R labels) of the group, most connected first"
    return material
