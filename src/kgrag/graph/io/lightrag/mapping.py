"""How a LightRAG graph maps onto kgrag's entities, relations and per-chunk mentions (pure, no store).

LightRAG stores one merged node per entity name and joins the per-chunk parts with ``<SEP>``:
``description`` = d1<SEP>d2..., ``source_id`` = chunk1<SEP>chunk2... We turn those back into mentions:

* identity: every LightRAG node stays one entity, so imported statistics equal LightRAG's (merging is
  the denoiser's job, not the importer's). The key is kgrag's normalised key of the node id, so later
  extraction over new text joins these entities; LightRAG keeps ``Device`` and ``device`` (or
  ``Clinical trial``/``Clinical trials``) as separate nodes, so when keys collide the nodes, sorted by
  raw id, get ``#2``, ``#3``... suffixes instead of being merged;
* descriptions ↔ chunks: LightRAG does not record which description came from which chunk. When the
  two lists have equal length, description *i* goes with source *i* (LightRAG appends both in step);
  otherwise every description is attached to every source chunk and the item counts as a mismatch;
  the merged description is the distinct descriptions joined by newlines, kept verbatim;
* types: lower-cased, whitespace collapsed, stray punctuation trimmed; ``unknown``/empty → ``concept``;
* relations: weight is kept (spread evenly over the mentions, so their sum, kgrag's aggregate, is
  LightRAG's value); keywords are split on commas; the label is the first keyword (LightRAG has no
  label), else ``related_to``; self-loops cannot be stored (one row per unordered pair) and are counted.

Source ids missing from the chunk file are handled at load time (:func:`resolve_provenance`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kgrag.core.graph_records import EntityMention, RelationMention
from kgrag.graph.build.aggregate import FALLBACK_TYPE, GENERIC_LABEL
from kgrag.graph.io.graphml_format import GraphmlEdge, GraphmlGraph, GraphmlNode, as_float, split_multi
from kgrag.graph.io.load import EntitySpec, RelationSpec
from kgrag.graph.normalize import entity_key

SEP = "<SEP>"


@dataclass
class MappingCounts:
    """What the mapping had to bend; reported to the user after an import."""

    node_mismatches: int = 0
    edge_mismatches: int = 0
    key_collisions: int = 0
    implicit_nodes: int = 0
    self_loops_skipped: int = 0
    parallel_edges_merged: int = 0


@dataclass
class GraphPlan:
    """Entities and relations ready to load (mentions may still name chunks the store lacks)."""

    entities: list[EntitySpec] = field(default_factory=list)
    relations: list[RelationSpec] = field(default_factory=list)
    counts: MappingCounts = field(default_factory=MappingCounts)


def base_key(raw_id: str) -> str:
    """kgrag's normalised key (so later extraction joins these entities), or the case-folded id with
    whitespace collapsed when normalisation leaves nothing (e.g. a node called "!!!")."""
    return entity_key(raw_id) or " ".join(raw_id.casefold().split()) or raw_id


def map_type(raw_type: str) -> str:
    cleaned = " ".join(raw_type.lower().split()).strip(" ,.;:'\"")
    return FALLBACK_TYPE if cleaned in ("", "unknown") else cleaned


def assign_keys(raw_ids: Iterable[str]) -> tuple[dict[str, str], int]:
    """Map each raw node id to a unique key; colliding ids (sorted) get ``#2``, ``#3``... suffixes.

    Sorting makes the assignment independent of file order, so re-imports give the same keys.
    Returns the mapping and how many ids needed a suffix.
    """
    groups: dict[str, list[str]] = {}
    for raw in sorted(set(raw_ids)):
        groups.setdefault(base_key(raw), []).append(raw)
    used = set(groups)
    keys: dict[str, str] = {}
    suffixed = 0
    for key, members in groups.items():
        keys[members[0]] = key
        for raw in members[1:]:
            number = 2
            while f"{key}#{number}" in used:
                number += 1
            keys[raw] = f"{key}#{number}"
            used.add(keys[raw])
            suffixed += 1
    return keys, suffixed


def _dedupe(values: Iterable[str], fold: bool = False) -> list[str]:
    seen: dict[str, str] = {}
    for value in values:
        seen.setdefault(value.casefold() if fold else value, value)
    return list(seen.values())


def pair_descriptions(description: str, source_id: str) -> tuple[dict[str, str], bool]:
    """``{chunk_id: description}`` for one LightRAG item, and whether the counts mismatched."""
    descriptions = split_multi(description, SEP)
    sources = split_multi(source_id, SEP)
    matched = len(descriptions) == len(sources)
    pairs = (
        zip(sources, descriptions, strict=True)
        if matched
        else ((source, "\n".join(_dedupe(descriptions))) for source in sources)
    )
    per_chunk: dict[str, list[str]] = {}
    for chunk, text in pairs:
        per_chunk.setdefault(chunk, []).append(text)
    return {chunk: "\n".join(_dedupe(texts)) for chunk, texts in per_chunk.items()}, not matched and bool(sources)


def _merge_parallel(first: RelationSpec, second: RelationSpec) -> RelationSpec:
    """Two LightRAG edges between the same nodes (only in hand-made files) become one relation."""
    return RelationSpec(
        source_key=first.source_key,
        target_key=first.target_key,
        label=first.label,
        description="\n".join(_dedupe([*first.description.split("\n"), *second.description.split("\n")])),
        keywords=tuple(_dedupe([*first.keywords, *second.keywords], fold=True)),
        weight=first.weight + second.weight,
        mentions=first.mentions + second.mentions,
    )


class _Mapper:
    """Builds a :class:`GraphPlan` from a parsed LightRAG GraphML."""

    def __init__(self, graph: GraphmlGraph) -> None:
        self.plan = GraphPlan()
        node_ids = [node.id for node in graph.nodes]
        self.implicit = sorted({end for edge in graph.edges for end in (edge.source, edge.target)} - set(node_ids))
        self.plan.counts.implicit_nodes = len(self.implicit)
        self.keys, self.plan.counts.key_collisions = assign_keys(node_ids + self.implicit)
        self.relations: dict[frozenset[str], RelationSpec] = {}

    def add_node(self, node: GraphmlNode) -> None:
        name = node.attrs.get("entity_id") or node.id
        entity_type = map_type(node.attrs.get("entity_type", ""))
        description = "\n".join(_dedupe(split_multi(node.attrs.get("description", ""), SEP)))
        per_chunk, mismatch = pair_descriptions(node.attrs.get("description", ""), node.attrs.get("source_id", ""))
        self.plan.counts.node_mismatches += mismatch
        key = self.keys[node.id]
        mentions = tuple(
            EntityMention(entity_key=key, chunk_id=chunk, surface=name, type=entity_type, description=text)
            for chunk, text in per_chunk.items()
        )
        metadata = {"lightrag_id": node.id, "lightrag_type": node.attrs.get("entity_type", "")}
        self.plan.entities.append(
            EntitySpec(
                key=key, name=name, type=entity_type, description=description, mentions=mentions, metadata=metadata
            )
        )

    def add_edge(self, edge: GraphmlEdge) -> None:
        source, target = self.keys[edge.source], self.keys[edge.target]
        if source == target:
            self.plan.counts.self_loops_skipped += 1
            return
        attrs = edge.attrs
        keywords = tuple(
            _dedupe(
                (k for part in split_multi(attrs.get("keywords", ""), SEP) for k in split_multi(part, ",")), fold=True
            )
        )
        weight = as_float(attrs.get("weight"), 1.0)
        per_chunk, mismatch = pair_descriptions(attrs.get("description", ""), attrs.get("source_id", ""))
        self.plan.counts.edge_mismatches += mismatch
        label = keywords[0] if keywords else GENERIC_LABEL
        mentions = tuple(
            RelationMention(
                source_key=source,
                target_key=target,
                chunk_id=chunk,
                label=label,
                description=text,
                keywords=keywords,
                weight=weight / len(per_chunk),
            )
            for chunk, text in per_chunk.items()
        )
        relation = RelationSpec(
            source_key=source,
            target_key=target,
            label=label,
            keywords=keywords,
            description="\n".join(_dedupe(split_multi(attrs.get("description", ""), SEP))),
            weight=weight,
            mentions=mentions,
        )
        pair = frozenset((source, target))
        if pair in self.relations:
            self.plan.counts.parallel_edges_merged += 1
            relation = _merge_parallel(self.relations[pair], relation)
        self.relations[pair] = relation

    def add_implicit_nodes(self) -> None:
        """Edge endpoints that are not nodes (hand-edited files): entities without description, on the
        chunks of their edges."""
        for raw in self.implicit:
            key = self.keys[raw]
            chunks = dict.fromkeys(
                m.chunk_id
                for rel in self.relations.values()
                if key in (rel.source_key, rel.target_key)
                for m in rel.mentions
            )
            mentions = tuple(EntityMention(key, chunk, raw, FALLBACK_TYPE, "") for chunk in chunks)
            self.plan.entities.append(
                EntitySpec(
                    key=key,
                    name=raw,
                    type=FALLBACK_TYPE,
                    description="",
                    mentions=mentions,
                    metadata={"lightrag_id": raw},
                )
            )


def map_lightrag_graph(graph: GraphmlGraph) -> GraphPlan:
    """Map a parsed LightRAG GraphML onto entity/relation specs with per-chunk mentions."""
    mapper = _Mapper(graph)
    for node in graph.nodes:
        mapper.add_node(node)
    for edge in graph.edges:
        mapper.add_edge(edge)
    mapper.add_implicit_nodes()
    mapper.plan.relations = list(mapper.relations.values())
    return mapper.plan
