"""GraphML export of the stored graph and import of such a file back (``kgrag graph export/import``).

The GraphML file is the portable graph: node id = entity id; node attributes ``key``, ``name``,
``type``, ``description``, ``chunk_ids``, ``metadata`` (JSON); edge attributes ``label``,
``description``, ``keywords``, ``weight`` (double), ``chunk_ids``. Multi-values are joined with
``<SEP>`` as LightRAG does. Next to it goes the JSON companion (:mod:`kgrag.graph.io.companion`) with
chunk texts and per-chunk mentions.

Import: with the companion, documents the store lacks are created and the exact mentions restored, so
export → import into a fresh workspace gives the same entities, relations, descriptions and
provenance. Without it, each listed chunk id becomes one mention carrying the merged fields, and chunk
ids the store does not hold are skipped (items left with none go to a placeholder chunk, as in the
LightRAG import). The merged fields of the file are saved verbatim. Re-importing is idempotent: the
mentions of the chunks the file refers to are replaced, and entities left without provenance deleted.
Extraction marks are left alone: where the chunks were already extracted nothing is redone, but in a
fresh workspace a configured extractor (``graph.extractor`` other than ``none``) extracts the imported
chunks at the next index run and replaces their imported mentions; the CLI warns about it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from kgrag.core.errors import KgragError
from kgrag.core.graph_records import EntityMention, EntityRecord, RelationMention, RelationRecord
from kgrag.graph.build.vectors import mark_graph_vectors_stale
from kgrag.graph.io.companion import (
    Companion,
    collect_companion,
    companion_path,
    read_companion,
    write_companion,
    write_companion_documents,
)
from kgrag.graph.io.graphml_format import (
    GraphmlEdge,
    GraphmlGraph,
    GraphmlNode,
    as_float,
    read_graphml,
    split_multi,
    write_graphml,
)
from kgrag.graph.io.load import (
    EntitySpec,
    Placeholder,
    RelationSpec,
    load_graph,
    resolve_provenance,
    write_placeholder,
)
from kgrag.graph.io.report import ImportReport
from kgrag.graph.normalize import entity_key
from kgrag.store.base import Store

SEP = "<SEP>"
NODE_ATTRS = {
    "key": "string",
    "name": "string",
    "type": "string",
    "description": "string",
    "chunk_ids": "string",
    "metadata": "string",
}
EDGE_ATTRS = {
    "label": "string",
    "description": "string",
    "keywords": "string",
    "weight": "double",
    "chunk_ids": "string",
}


def _node(entity: EntityRecord) -> GraphmlNode:
    return GraphmlNode(
        id=entity.id,
        attrs={
            "key": entity.key,
            "name": entity.name,
            "type": entity.type,
            "description": entity.description,
            "chunk_ids": SEP.join(entity.chunk_ids),
            "metadata": json.dumps(entity.metadata, sort_keys=True),
        },
    )


def _edge(relation: RelationRecord) -> GraphmlEdge:
    return GraphmlEdge(
        source=relation.source_id,
        target=relation.target_id,
        attrs={
            "label": relation.label,
            "description": relation.description,
            "keywords": SEP.join(relation.keywords),
            "weight": repr(float(relation.weight)),
            "chunk_ids": SEP.join(relation.chunk_ids),
        },
    )


def export_graphml(store: Store, path: Path, with_companion: bool = True) -> dict[str, int]:
    """Write the graph to ``path`` (and its companion unless told not to); returns counts."""
    entities = store.graph.entities()
    relations = store.graph.relations()
    graph = GraphmlGraph(nodes=[_node(e) for e in entities], edges=[_edge(r) for r in relations])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KgragError(f"{path.parent}: cannot create the export directory ({exc.strerror})") from exc
    write_graphml(path, graph, NODE_ATTRS, EDGE_ATTRS)
    counts = {"entities": len(entities), "relations": len(relations)}
    if with_companion:
        companion = collect_companion(store, [e.id for e in entities], [r.id for r in relations])
        write_companion(companion_path(path), companion)
        counts["chunks"] = len(companion.chunks)
    return counts


def _metadata(text: str) -> dict[str, str]:
    try:
        data = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _entity_specs(nodes: Iterable[GraphmlNode], companion: Companion | None) -> tuple[list[EntitySpec], dict[str, str]]:
    """Specs per node and the node-id → key map (keys default to the normalised node name). Mentions
    come from the companion when it has them, else one per listed chunk with the merged fields."""
    mentions: dict[str, list[EntityMention]] = {}
    for m in companion.entity_mentions if companion else ():
        mentions.setdefault(m.entity_key, []).append(m)
    specs, keys = [], {}
    for node in nodes:
        a = node.attrs
        name = a.get("name") or node.id
        key = a.get("key") or entity_key(name) or name
        keys[node.id] = key
        etype, description = a.get("type") or "concept", a.get("description", "")
        own = mentions.get(key) or [
            EntityMention(key, chunk, name, etype, description) for chunk in split_multi(a.get("chunk_ids", ""), SEP)
        ]
        specs.append(
            EntitySpec(
                key=key,
                name=name,
                type=etype,
                description=description,
                mentions=tuple(own),
                metadata=_metadata(a.get("metadata", "")),
            )
        )
    return specs, keys


def _relation_specs(
    edges: Iterable[GraphmlEdge], keys: dict[str, str], companion: Companion | None
) -> list[RelationSpec]:
    """Specs per edge; without companion mentions the weight is spread evenly over the listed chunks."""
    mentions: dict[frozenset[str], list[RelationMention]] = {}
    for m in companion.relation_mentions if companion else ():
        mentions.setdefault(frozenset((m.source_key, m.target_key)), []).append(m)
    specs = []
    for edge in edges:
        if edge.source not in keys or edge.target not in keys:
            raise KgragError(f"edge {edge.source!r} -- {edge.target!r} names a node that is not in the file")
        a, source, target = edge.attrs, keys[edge.source], keys[edge.target]
        keywords = tuple(split_multi(a.get("keywords", ""), SEP))
        label, description = a.get("label", ""), a.get("description", "")
        weight = as_float(a.get("weight"), 1.0)
        chunks = split_multi(a.get("chunk_ids", ""), SEP)
        own = mentions.get(frozenset((source, target))) or [
            RelationMention(source, target, chunk, label, description, keywords, weight / len(chunks))
            for chunk in chunks
        ]
        specs.append(
            RelationSpec(
                source_key=source,
                target_key=target,
                label=label,
                description=description,
                keywords=keywords,
                weight=weight,
                mentions=tuple(own),
            )
        )
    return specs


def import_graphml(store: Store, path: Path, companion_file: Path | None = None) -> ImportReport:
    """Import a GraphML file written by :func:`export_graphml` (one transaction, idempotent)."""
    graph = read_graphml(path)
    companion_file = companion_file or companion_path(path)
    companion = read_companion(companion_file) if companion_file.is_file() else None
    entities, keys = _entity_specs(graph.nodes, companion)
    if len(set(keys.values())) < len(keys):
        raise KgragError(
            f"{path}: several nodes share one entity key; for GraphML not written by kgrag "
            "use `kgrag graph import --from lightrag`, which keeps such nodes apart"
        )
    relations = _relation_specs(graph.edges, keys, companion)
    if any(spec.source_key == spec.target_key for spec in relations):
        raise KgragError(f"{path}: self-loop edges cannot be stored (relations join two distinct entities)")
    tag = hashlib.sha1("\n".join(sorted(keys.values())).encode("utf-8")).hexdigest()[:12]
    placeholder = Placeholder(doc_id=f"graphml-import-{tag}", chunk_id=f"graphml-import-{tag}", title="GraphML import")
    report = ImportReport(
        source=str(path),
        chunks_file=str(companion_file) if companion else "",
        documents=len(companion.documents) if companion else 0,
    )
    with store.transaction():
        report.chunks_rewritten = write_companion_documents(store, companion) if companion else 0
        referenced = sorted(
            {m.chunk_id for spec in entities for m in spec.mentions}
            | {m.chunk_id for spec in relations for m in spec.mentions}
        )
        known = {c.id for c in store.chunks.get_many(referenced)}
        resolved = resolve_provenance(entities, relations, known, placeholder)
        store.graph.clear_chunk_mentions([*known, placeholder.chunk_id])
        if resolved.placeholder_lines:
            write_placeholder(store, placeholder, resolved.placeholder_lines)
        elif store.documents.get(placeholder.doc_id) is not None:
            store.documents.delete(placeholder.doc_id)
        load_graph(store, resolved.entities, resolved.relations)
        store.graph.delete_orphans()
        mark_graph_vectors_stale(store)
    report.nodes, report.edges, report.chunks = len(resolved.entities), len(resolved.relations), len(known)
    report.dangling_source_ids, report.skipped_mentions = len(resolved.dangling_chunk_ids), resolved.skipped_mentions
    report.placeholder_entities = resolved.placeholder_entities
    report.placeholder_relations = resolved.placeholder_relations
    return report
