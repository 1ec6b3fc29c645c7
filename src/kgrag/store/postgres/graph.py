"""PostgreSQL graph repository: merged entities and relations, their per-chunk mentions, extraction marks.

The semantics are those of :mod:`kgrag.store.sqlite.graph` (mentions are the facts, aggregates are
derived; cascades from chunks remove provenance; triggers flag changed aggregates stale; relations are
stored once per unordered pair with ``forward`` keeping the stated direction). Id lists travel as one
array parameter (``= ANY(%s)``) instead of batches of placeholders.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kgrag.core.graph_ids import entity_id_for_key, relation_id_for_pair
from kgrag.core.graph_records import EntityMention, EntityRecord, RelationMention, RelationRecord
from kgrag.store.postgres.database import PgDatabase

# Mentions come back in document order, then extraction order within a chunk (see the SQLite backend).
_CHUNK_ORDER = "c.doc_id, c.ord, m.rowid"
_RELATION_COLUMNS = "id, source_id, target_id, label, description, keywords, weight"
IMPORT_PREFIX = "import:"
_NOT_IMPORTED = (
    "NOT EXISTS (SELECT 1 FROM chunk_extractions i WHERE i.chunk_id = c.id "
    f"AND starts_with(i.extractor, '{IMPORT_PREFIX}') AND i.error IS NULL)"
)
_Row = tuple[Any, ...]


def unique(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


class PgGraph:
    """Implements :class:`kgrag.store.base.GraphRepository`; writes join the caller's transaction."""

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    # -- mentions -------------------------------------------------------------------------------
    def add_entity_mentions(self, mentions: Sequence[EntityMention]) -> list[str]:
        """Insert mentions, creating placeholder entities (stale) for unseen keys; returns entity ids.

        A key merged away by denoising (``entity_aliases``) lands on its canonical entity instead.
        """
        canon = self._canonical([m.entity_key for m in mentions])
        ids = [canon.get(m.entity_key, (entity_id_for_key(m.entity_key), m.entity_key))[0] for m in mentions]
        keys = [canon.get(m.entity_key, ("", m.entity_key))[1] for m in mentions]
        with self._db.transaction():
            self._db.executemany(
                "INSERT INTO entities(id, key, name, type) VALUES (%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                [(i, k, m.surface, m.type) for i, k, m in zip(ids, keys, mentions, strict=True)],
            )
            self._db.executemany(
                "INSERT INTO entity_mentions(entity_id, chunk_id, surface, type, description) VALUES (%s,%s,%s,%s,%s)",
                [(i, m.chunk_id, m.surface, m.type, m.description) for i, m in zip(ids, mentions, strict=True)],
            )
        return ids

    def add_relation_mentions(self, mentions: Sequence[RelationMention]) -> list[str]:
        """Insert mentions, creating placeholder relations; both endpoint entities must exist already
        (see :meth:`kgrag.store.sqlite.graph.SQLiteGraph.add_relation_mentions`)."""
        canon = self._canonical([k for m in mentions for k in (m.source_key, m.target_key)])
        dropped = {r[0] for r in self._db.query("SELECT relation_id FROM denoise_dropped")}
        rows, relations, ids = [], [], []
        for m in mentions:
            a = canon[m.source_key][0] if m.source_key in canon else entity_id_for_key(m.source_key)
            b = canon[m.target_key][0] if m.target_key in canon else entity_id_for_key(m.target_key)
            rid = relation_id_for_pair(a, b)
            ids.append(rid)
            if (a == b and m.source_key != m.target_key) or rid in dropped:
                continue  # a loop only the merge created, or a relation reflection removed
            relations.append((rid, min(a, b), max(a, b), m.label))
            rows.append(
                (rid, m.chunk_id, int(a < b), m.label, m.description, json.dumps(list(m.keywords)), float(m.weight))
            )
        with self._db.transaction():
            self._db.executemany(
                "INSERT INTO relations(id, source_id, target_id, label) VALUES (%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                relations,
            )
            self._db.executemany(
                "INSERT INTO relation_mentions(relation_id, chunk_id, forward, label, description, keywords, "
                "weight) VALUES (%s,%s,%s,%s,%s,%s,%s)",
                rows,
            )
        return ids

    def _canonical(self, keys: Sequence[str]) -> dict[str, tuple[str, str]]:
        """alias key → (canonical id, canonical key) for the merged keys among ``keys``."""
        if not keys or not self._db.scalar("SELECT 1 FROM entity_aliases LIMIT 1"):
            return {}
        rows = self._db.query(
            "SELECT alias_key, canonical_id, canonical_key FROM entity_aliases WHERE alias_key = ANY(%s)",
            (unique(keys),),
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    def clear_chunk_mentions(self, chunk_ids: Sequence[str]) -> None:
        """Drop the mentions of chunks about to be re-extracted (their entities/relations turn stale)."""
        ids = unique(chunk_ids)
        with self._db.transaction():
            self._db.execute("DELETE FROM relation_mentions WHERE chunk_id = ANY(%s)", (ids,))
            self._db.execute("DELETE FROM entity_mentions WHERE chunk_id = ANY(%s)", (ids,))

    def entity_mentions(self, entity_ids: Sequence[str]) -> dict[str, list[EntityMention]]:
        rows = self._db.query(
            "SELECT m.entity_id, e.key, m.chunk_id, m.surface, m.type, m.description FROM entity_mentions m "
            "JOIN entities e ON e.id = m.entity_id JOIN chunks c ON c.id = m.chunk_id "
            f"WHERE m.entity_id = ANY(%s) ORDER BY {_CHUNK_ORDER}",
            (unique(entity_ids),),
        )
        out: dict[str, list[EntityMention]] = {}
        for r in rows:
            out.setdefault(r[0], []).append(
                EntityMention(entity_key=r[1], chunk_id=r[2], surface=r[3], type=r[4], description=r[5])
            )
        return out

    def relation_mentions(self, relation_ids: Sequence[str]) -> dict[str, list[RelationMention]]:
        rows = self._db.query(
            "SELECT m.relation_id, s.key, t.key, m.forward, m.chunk_id, m.label, m.description, m.keywords, "
            "m.weight FROM relation_mentions m JOIN relations r ON r.id = m.relation_id "
            "JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id "
            f"JOIN chunks c ON c.id = m.chunk_id WHERE m.relation_id = ANY(%s) ORDER BY {_CHUNK_ORDER}",
            (unique(relation_ids),),
        )
        out: dict[str, list[RelationMention]] = {}
        for r in rows:
            source, target = (r[1], r[2]) if r[3] else (r[2], r[1])
            out.setdefault(r[0], []).append(
                RelationMention(
                    source_key=source,
                    target_key=target,
                    chunk_id=r[4],
                    label=r[5],
                    description=r[6],
                    keywords=tuple(json.loads(r[7])),
                    weight=float(r[8]),
                )
            )
        return out

    # -- aggregates ------------------------------------------------------------------------------
    def save_entities(self, entities: Sequence[EntityRecord]) -> None:
        """Upsert merged entities and clear their stale flag (``chunk_ids`` is derived, not stored)."""
        with self._db.transaction():
            self._db.executemany(
                "INSERT INTO entities(id, key, name, type, description, stale, metadata) "
                "VALUES (%s,%s,%s,%s,%s,0,%s) ON CONFLICT(id) DO UPDATE SET name = excluded.name, "
                "type = excluded.type, description = excluded.description, stale = 0, metadata = excluded.metadata",
                [
                    (e.id, e.key, e.name, e.type, e.description, json.dumps(e.metadata, sort_keys=True))
                    for e in entities
                ],
            )

    def mark_stale(self, entity_ids: Sequence[str], relation_ids: Sequence[str]) -> None:
        """Flag aggregates to be rebuilt by the next refresh (e.g. their summary was a fallback)."""
        with self._db.transaction():
            self._db.execute("UPDATE entities SET stale = 1 WHERE id = ANY(%s)", (unique(entity_ids),))
            self._db.execute("UPDATE relations SET stale = 1 WHERE id = ANY(%s)", (unique(relation_ids),))

    def save_relations(self, relations: Sequence[RelationRecord]) -> None:
        """Upsert merged relations and clear their stale flag; endpoints are stored in id order."""
        with self._db.transaction():
            self._db.executemany(
                "INSERT INTO relations(id, source_id, target_id, label, description, keywords, weight, stale) "
                "VALUES (%s,%s,%s,%s,%s,%s,%s,0) ON CONFLICT(id) DO UPDATE SET label = excluded.label, "
                "description = excluded.description, keywords = excluded.keywords, weight = excluded.weight, "
                "stale = 0",
                [
                    (
                        r.id,
                        min(r.source_id, r.target_id),
                        max(r.source_id, r.target_id),
                        r.label,
                        r.description,
                        json.dumps(list(r.keywords)),
                        float(r.weight),
                    )
                    for r in relations
                ],
            )

    def _provenance(self, table: str, column: str, ids: Sequence[str] | None) -> dict[str, list[str]]:
        """Distinct chunk ids per entity/relation, in document order."""
        where, params = (f" WHERE m.{column} = ANY(%s)", (unique(ids),)) if ids is not None else ("", None)
        rows = self._db.query(
            f"SELECT DISTINCT m.{column}, m.chunk_id, c.doc_id, c.ord FROM {table} m "
            f"JOIN chunks c ON c.id = m.chunk_id{where} ORDER BY c.doc_id, c.ord",
            params,
        )
        out: dict[str, list[str]] = {}
        for r in rows:
            out.setdefault(r[0], []).append(r[1])
        return out

    def entities(self, entity_ids: Sequence[str] | None = None) -> list[EntityRecord]:
        """Entities (all, in creation order, or the given ids in that order) with their provenance."""
        rows = self._select("SELECT id, key, name, type, description, metadata FROM entities", entity_ids)
        provenance = self._provenance("entity_mentions", "entity_id", entity_ids)
        return [
            EntityRecord(
                id=r[0],
                key=r[1],
                name=r[2],
                type=r[3],
                description=r[4],
                chunk_ids=tuple(provenance.get(r[0], ())),
                metadata=json.loads(r[5]),
            )
            for r in rows
        ]

    def relations(self, relation_ids: Sequence[str] | None = None) -> list[RelationRecord]:
        """Relations (all, or the given ids in that order) with their provenance."""
        rows = self._select(f"SELECT {_RELATION_COLUMNS} FROM relations", relation_ids)
        return _relation_records(rows, self._provenance("relation_mentions", "relation_id", relation_ids))

    def relations_of(self, entity_ids: Sequence[str]) -> list[RelationRecord]:
        """Every relation touching one of ``entity_ids``, in creation order."""
        ids = unique(entity_ids)
        rows = self._db.query(
            f"SELECT {_RELATION_COLUMNS} FROM relations WHERE source_id = ANY(%s) OR target_id = ANY(%s) "
            "ORDER BY rowid",
            (ids, ids),
        )
        provenance = self._provenance("relation_mentions", "relation_id", [r[0] for r in rows])
        return _relation_records(rows, provenance)

    def _select(self, sql: str, ids: Sequence[str] | None) -> list[_Row]:
        if ids is None:
            return self._db.query(sql + " ORDER BY rowid")
        found = {r[0]: r for r in self._db.query(sql + " WHERE id = ANY(%s)", (unique(ids),))}
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def entity_by_key(self, key: str) -> EntityRecord | None:
        entity_id = self._db.scalar("SELECT id FROM entities WHERE key = %s", (key,))
        if entity_id is None:
            return None
        found = self.entities([str(entity_id)])
        return found[0] if found else None

    # -- lifecycle -------------------------------------------------------------------------------
    def stale_entity_ids(self) -> list[str]:
        return [r[0] for r in self._db.query("SELECT id FROM entities WHERE stale = 1 ORDER BY rowid")]

    def stale_relation_ids(self) -> list[str]:
        return [r[0] for r in self._db.query("SELECT id FROM relations WHERE stale = 1 ORDER BY rowid")]

    def delete_orphans(self) -> tuple[int, int]:
        """Delete entities with no mention left (their relations go by cascade), then relations with
        none; returns (entities deleted, relations deleted)."""
        with self._db.transaction():
            relations_before = int(self._db.scalar("SELECT COUNT(*) FROM relations") or 0)
            entities = self._db.execute(
                "DELETE FROM entities WHERE NOT EXISTS "
                "(SELECT 1 FROM entity_mentions m WHERE m.entity_id = entities.id)"
            )
            self._db.execute(
                "DELETE FROM relations WHERE NOT EXISTS "
                "(SELECT 1 FROM relation_mentions m WHERE m.relation_id = relations.id)"
            )
            relations_after = int(self._db.scalar("SELECT COUNT(*) FROM relations") or 0)
        return entities, relations_before - relations_after

    # -- extraction bookkeeping ------------------------------------------------------------------
    def mark_extracted(
        self, chunk_id: str, extractor: str, error: str | None, n_entities: int, n_relations: int
    ) -> None:
        """Record that ``extractor`` ran on the chunk (an ``error`` row means "retry next run"); marks of
        other extractors for the chunk are dropped: the graph holds one extraction per chunk."""
        with self._db.transaction():
            self._db.execute(
                "DELETE FROM chunk_extractions WHERE chunk_id = %s AND extractor <> %s", (chunk_id, extractor)
            )
            self._db.execute(
                "INSERT INTO chunk_extractions(chunk_id, extractor, error, n_entities, n_relations) "
                "VALUES (%s,%s,%s,%s,%s) ON CONFLICT(chunk_id, extractor) DO UPDATE SET error = excluded.error, "
                "n_entities = excluded.n_entities, n_relations = excluded.n_relations",
                (chunk_id, extractor, error, n_entities, n_relations),
            )

    def chunks_needing_extraction(self, extractor: str) -> list[str]:
        """Chunks never extracted by ``extractor`` or whose last attempt failed, in ingestion order;
        chunks whose graph was imported (``import:...``) are never re-extracted."""
        rows = self._db.query(
            "SELECT c.id FROM chunks c LEFT JOIN chunk_extractions x ON x.chunk_id = c.id AND x.extractor = %s "
            f"WHERE (x.chunk_id IS NULL OR x.error IS NOT NULL) AND {_NOT_IMPORTED} ORDER BY c.rowid",
            (extractor,),
        )
        return [r[0] for r in rows]

    def documents_needing_extraction(self, extractor: str) -> list[str]:
        """Documents with at least one chunk that :meth:`chunks_needing_extraction` would return."""
        rows = self._db.query(
            "SELECT DISTINCT c.doc_id FROM chunks c LEFT JOIN chunk_extractions x "
            "ON x.chunk_id = c.id AND x.extractor = %s WHERE (x.chunk_id IS NULL OR x.error IS NOT NULL) "
            f"AND {_NOT_IMPORTED} ORDER BY c.doc_id",
            (extractor,),
        )
        return [r[0] for r in rows]

    def extraction_errors(self, extractor: str, limit: int = 20) -> list[tuple[str, str]]:
        """(chunk id, error) of chunks whose last extraction failed, for reports."""
        rows = self._db.query(
            "SELECT chunk_id, error FROM chunk_extractions WHERE extractor = %s AND error IS NOT NULL "
            "ORDER BY chunk_id LIMIT %s",
            (extractor, limit),
        )
        return [(r[0], r[1]) for r in rows]

    def counts(self) -> dict[str, int]:
        """Sizes for status pages: entities, relations, mentions, chunks extracted and failed (one query)."""
        row = self._db.query(
            "SELECT (SELECT COUNT(*) FROM entities), (SELECT COUNT(*) FROM relations), "
            "(SELECT COUNT(*) FROM entity_mentions), (SELECT COUNT(*) FROM relation_mentions), "
            "(SELECT COUNT(*) FROM chunk_extractions WHERE error IS NULL), "
            "(SELECT COUNT(*) FROM chunk_extractions WHERE error IS NOT NULL)"
        )[0]
        names = ("entities", "relations", "entity_mentions", "relation_mentions", "chunks_extracted", "chunks_failed")
        return {name: int(value) for name, value in zip(names, row, strict=True)}


def _relation_records(rows: Sequence[_Row], provenance: dict[str, list[str]]) -> list[RelationRecord]:
    return [
        RelationRecord(
            id=r[0],
            source_id=r[1],
            target_id=r[2],
            label=r[3],
            description=r[4],
            keywords=tuple(json.loads(r[5])),
            weight=float(r[6]),
            chunk_ids=tuple(provenance.get(r[0], ())),
        )
        for r in rows
    ]
