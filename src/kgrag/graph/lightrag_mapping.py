"""How a LightRAG graph maps onto kgrag's entities, relations and per-chunk mentions (pure, no store).

LightRAG stores one merged node per entity name and joins the per-chunk parts with ``<SEP>``:
``description`` = d1<SEP>d2..., ``source_id`` = chunk1<SEP>chunk2... We turn those back into mentions:

* identity: every LightRAG node stays one entity. Its key is the node id case-folded with whitespace
  collapsed; LightRAG treats ``Device`` and ``device`` as two nodes, so when keys collide the nodes
  (sorted by raw id) get ``#2``, ``#3``... suffixes instead of being merged. Imported stats therefore
  equal LightRAG's; merging them is the denoiser's job, not the importer's;
* descriptions ↔ chunks: LightRAG does not record which description came from which chunk. When the
  two lists have equal length, description *i* goes with source *i* (LightRAG appends both in step);
  otherwise every description is attached to every source chunk and the item is counted as a mismatch;
* types: lower-cased, whitespace collapsed, stray punctuation trimmed; ``unknown``/empty → ``concept``;
* relations: weight is kept (spread evenly over the mentions, so summing gives LightRAG's value),
  keywords are split on commas, the label is the first keyword (LightRAG has no label), else
  ``related to``;
* missing chunks: a source id absent from the chunk file cannot be provenance (mentions must point to
  real chunks), so that mention is skipped and counted. An item left with no real chunk is kept through
  one synthetic ``lightrag-import`` chunk whose text lists those items, so no node or edge is lost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kgrag.graph.graph_load import EntitySpec, RelationSpec
from kgrag.graph.graphml_format import GraphmlEdge, GraphmlGraph, GraphmlNode, split_multi
from kgrag.store.graph_records import EntityMention, RelationMention

SEP = "<SEP>"
FALLBACK_TYPE = "concept"
FALLBACK_LABEL = "related to"
SYNTHETIC_CHUNK_ID = "lightrag-import"


@dataclass
class MappingCounts:
    """What the mapping had to bend; reported to the user after an import."""

    dangling_source_ids: set[str] = field(default_factory=set)
    skipped_mentions: int = 0
    node_mismatches: int = 0
    edge_mismatches: int = 0
    synthetic_entities: int = 0
    synthetic_relations: int = 0
    key_collisions: int = 0
    implicit_nodes: int = 0


@dataclass
class GraphPlan:
    """Entities and relations ready to load; ``synthetic_lines`` is the text of the synthetic chunk."""

    entities: list[EntitySpec] = field(default_factory=list)
    relations: list[RelationSpec] = field(default_factory=list)
    synthetic_lines: list[str] = field(default_factory=list)
    counts: MappingCounts = field(default_factory=MappingCounts)


def base_key(raw_id: str) -> str:
    """The identity-preserving key: case-folded, whitespace collapsed (nothing else is merged)."""
    return " ".join(raw_id.casefold().split())


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


def _dedupe(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def pair_descriptions(description: str, source_id: str) -> tuple[dict[str, str], bool]:
    """``{chunk_id: description}`` for one LightRAG item, and whether the counts mismatched."""
    descriptions = split_multi(description, SEP)
    sources = split_multi(source_id, SEP)
    matched = len(descriptions) == len(sources)
    pairs = zip(sources, descriptions, strict=True) if matched else \
        ((source, "\n".join(_dedupe(descriptions))) for source in sources)
    per_chunk: dict[str, list[str]] = {}
    for chunk, text in pairs:
        per_chunk.setdefault(chunk, []).append(text)
    return {chunk: "\n".join(_dedupe(texts)) for chunk, texts in per_chunk.items()}, not matched and bool(sources)


class _Mapper:
    """Builds a :class:`GraphPlan` from a parsed LightRAG GraphML and the set of known chunk ids."""

    def __init__(self, graph: GraphmlGraph, known_chunks: set[str]) -> None:
        self.graph = graph
        self.known = known_chunks
        self.plan = GraphPlan()
        node_ids = [node.id for node in graph.nodes]
        implicit = {end for edge in graph.edges for end in (edge.source, edge.target)} - set(node_ids)
        self.plan.counts.implicit_nodes = len(implicit)
        self.keys, self.plan.counts.key_collisions = assign_keys(node_ids + sorted(implicit))
        self.implicit = sorted(implicit)

    def _chunks_for(self, description: str, source_id: str) -> tuple[dict[str, str], bool]:
        per_chunk, mismatch = pair_descriptions(description, source_id)
        counts = self.plan.counts
        for chunk in [c for c in per_chunk if c not in self.known]:
            counts.dangling_source_ids.add(chunk)
            counts.skipped_mentions += 1
            del per_chunk[chunk]
        return per_chunk, mismatch

    def _synthetic(self, title: str, description: str) -> dict[str, str]:
        self.plan.synthetic_lines.append(f"{title}: {' '.join(description.split())}".strip())
        return {SYNTHETIC_CHUNK_ID: description}

    def add_node(self, node: GraphmlNode) -> None:
        name = node.attrs.get("entity_id") or node.id
        entity_type = map_type(node.attrs.get("entity_type", ""))
        description = "\n".join(_dedupe(split_multi(node.attrs.get("description", ""), SEP)))
        per_chunk, mismatch = self._chunks_for(node.attrs.get("description", ""), node.attrs.get("source_id", ""))
        self.plan.counts.node_mismatches += mismatch
        if not per_chunk:
            per_chunk = self._synthetic(name, description)
            self.plan.counts.synthetic_entities += 1
        key = self.keys[node.id]
        mentions = tuple(EntityMention(entity_key=key, chunk_id=chunk, surface=name, type=entity_type,
                                       description=text) for chunk, text in per_chunk.items())
        metadata = {"lightrag_id": node.id, "lightrag_type": node.attrs.get("entity_type", "")}
        self.plan.entities.append(EntitySpec(key=key, name=name, type=entity_type, description=description,
                                             mentions=mentions, metadata=metadata))

    def add_implicit_node(self, raw_id: str, chunks: Iterable[str]) -> None:
        """An edge endpoint that is not a node (hand-edited files): an entity without description."""
        per_chunk = {chunk: "" for chunk in chunks}
        key = self.keys[raw_id]
        mentions = tuple(EntityMention(entity_key=key, chunk_id=chunk, surface=raw_id, type=FALLBACK_TYPE,
                                       description="") for chunk in per_chunk)
        self.plan.entities.append(EntitySpec(key=key, name=raw_id, type=FALLBACK_TYPE, description="",
                                             mentions=mentions, metadata={"lightrag_id": raw_id}))

    def add_edge(self, edge: GraphmlEdge) -> RelationSpec:
        attrs = edge.attrs
        keywords = tuple(_dedupe(k for part in split_multi(attrs.get("keywords", ""), SEP)
                                 for k in split_multi(part, ",")))
        label = keywords[0] if keywords else FALLBACK_LABEL
        description = "\n".join(_dedupe(split_multi(attrs.get("description", ""), SEP)))
        weight = _as_float(attrs.get("weight"), 1.0)
        per_chunk, mismatch = self._chunks_for(attrs.get("description", ""), attrs.get("source_id", ""))
        self.plan.counts.edge_mismatches += mismatch
        if not per_chunk:
            per_chunk = self._synthetic(f"{edge.source} -- {edge.target}", description)
            self.plan.counts.synthetic_relations += 1
        source, target = self.keys[edge.source], self.keys[edge.target]
        mentions = tuple(RelationMention(source_key=source, target_key=target, chunk_id=chunk, label=label,
                                         description=text, keywords=keywords, weight=weight / len(per_chunk))
                         for chunk, text in per_chunk.items())
        relation = RelationSpec(source_key=source, target_key=target, label=label, description=description,
                                keywords=keywords, weight=weight, mentions=mentions)
        self.plan.relations.append(relation)
        return relation


def _as_float(value: str | None, default: float) -> float:
    try:
        return float(value) if value not in (None, "") else default
    except ValueError:
        return default


def map_lightrag_graph(graph: GraphmlGraph, known_chunks: set[str]) -> GraphPlan:
    """Map a parsed LightRAG GraphML onto entity/relation specs with per-chunk mentions."""
    mapper = _Mapper(graph, known_chunks)
    for node in graph.nodes:
        mapper.add_node(node)
    endpoint_chunks: dict[str, list[str]] = {raw: [] for raw in mapper.implicit}
    for edge in graph.edges:
        relation = mapper.add_edge(edge)
        for raw in (edge.source, edge.target):
            if raw in endpoint_chunks:
                endpoint_chunks[raw].extend(m.chunk_id for m in relation.mentions)
    for raw, chunks in endpoint_chunks.items():
        mapper.add_implicit_node(raw, dict.fromkeys(chunks))
    return mapper.plan
