"""The text an entity or relation is embedded and shown as: ``"name (type): description"`` and
``"source label target: description"``. Naming the entity in its own text lets a query that names it
land on it even when the description is short."""

from __future__ import annotations

from kgrag.core.graph_records import EntityRecord, RelationRecord


def entity_text(entity: EntityRecord) -> str:
    """What an entity's vector is made from."""
    text = f"{entity.name} ({entity.type})"
    return f"{text}: {entity.description}" if entity.description else text


def relation_text(relation: RelationRecord, names: dict[str, str]) -> str:
    """What a relation's vector is made from: ``"source label target: description"``."""
    source = names.get(relation.source_id, relation.source_id)
    target = names.get(relation.target_id, relation.target_id)
    text = f"{source} {relation.label.replace('_', ' ')} {target}"
    return f"{text}: {relation.description}" if relation.description else text
