"""The graph repository of both stores: merged entities and relations, their per-chunk mentions, extraction marks.

Mentions are the facts; entity and relation rows are aggregates derived from them. Provenance is
enforced by the schema rather than by code: a mention references its chunk with ``ON DELETE CASCADE``,
so deleting a document (→ chunks → mentions) cannot leave provenance behind, and triggers flag every
entity/relation whose mentions changed as *stale*. The graph layer then recomputes stale aggregates and
drops orphans (``kgrag.graph.build.lifecycle``); nothing here needs to know why a mention went away.

Relations are undirected for storage: one row per unordered entity pair (``source_id < target_id``).
Each relation mention remembers whether it was stated in that order (``forward``), so the original
direction is still available to whoever wants it.

Id lists go through :meth:`Dialect.batches` / :meth:`Dialect.one_of`: batches of placeholders in
SQLite, one array parameter (``= ANY(?)``) in PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from kgrag.core.graph_ids import entity_id_for_key, relation_id_for_pair
from kgrag.core.graph_records import EntityMention, EntityRecord, RelationMention, RelationRecord
from kgrag.store.sql.database import Dialect, Row, SqlDatabase

# Mentions come back in document order (then extraction order within a chunk): descriptions are
# accumulated in that order, which keeps aggregates independent of the order chunks were processed in.
_CHUNK_ORDER = "d.content_hash, c.doc_id, c.ord, m.rowid"
"""Mentions in document order: documents by their content, not by their id (a hash of their path), so the
same files indexed from another folder or machine give the same descriptions, word for word."""


# the column order _relation_records reads
_RELATION_COLUMNS = "id, source_id, target_id, label, description, keywords, weight"
IMPORT_PREFIX = "import:"
_NOT_IMPORTED = (
    "NOT EXISTS (SELECT 1 FROM chunk_extractions i WHERE i.chunk_id = c.id "
    f"AND substr(i.extractor, 1, {len(IMPORT_PREFIX)}) = '{IMPORT_PREFIX}' AND i.error IS NULL)"
)


class SqlGraph:
    """Implements :class:`kgrag.store.base.GraphRepository`; writes join the caller's transaction."""

    def __init__(self, db: SqlDatabase, dialect: Dialect) -> None:
        self._db = db
        self._dialect = dialect

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
                "INSERT INTO entities(id, key, name, type) VALUES (?,?,?,?) ON CONFLICT DO NOTHING",
                [(i, k, m.surface, m.type) for i, k, m in zip(ids, keys, mentions, strict=True)],
            )
            self._db.executemany(
                "INSERT INTO entity_mentions(entity_id, chunk_id, surface, type, description) VALUES (?,?,?,?,?)",
                [(i, m.chunk_id, m.surface, m.type, m.description) for i, m in zip(ids, mentions, strict=True)],
            )
        return ids

    def add_relation_mentions(self, mentions: Sequence[RelationMention]) -> list[str]:
        """Insert mentions, creating placeholder relations; both endpoint entities must exist already.

        Endpoints merged away by denoising map to their canonical entities; a mention that only then loops
        on one entity, or names a relation denoising dropped, is skipped (its id is still returned). A
        mention of a relation from an entity to itself is refused by the schema.
        """
        canon = self._canonical([k for m in mentions for k in (m.source_key, m.target_key)])
        dropped = self._dropped()
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
                "INSERT INTO relations(id, source_id, target_id, label) VALUES (?,?,?,?) ON CONFLICT DO NOTHING",
                relations,
            )
            self._db.executemany(
                "INSERT INTO relation_mentions(relation_id, chunk_id, forward, label, description, keywords, "
                "weight) VALUES (?,?,?,?,?,?,?)",
                rows,
            )
        return ids

    def _canonical(self, keys: Sequence[str]) -> dict[str, tuple[str, str]]:
        """alias key → (canonical id, canonical key) for the merged keys among ``keys``."""
        if not self._db.scalar("SELECT 1 FROM entity_aliases LIMIT 1"):
            return {}
        out: dict[str, tuple[str, str]] = {}
        for condition, params in self._dialect.in_batches("alias_key", keys):
            rows = self._db.query(
                f"SELECT alias_key, canonical_id, canonical_key FROM entity_aliases WHERE {condition}", params
            )
            out.update({r[0]: (r[1], r[2]) for r in rows})
        return out

    def _dropped(self) -> set[str]:
        return {r[0] for r in self._db.query("SELECT relation_id FROM denoise_dropped")}

    def clear_chunk_mentions(self, chunk_ids: Sequence[str]) -> None:
        """Drop the mentions of chunks about to be re-extracted (their entities/relations turn stale)."""
        with self._db.transaction():
            for condition, params in self._dialect.in_batches("chunk_id", chunk_ids):
                self._db.execute(f"DELETE FROM relation_mentions WHERE {condition}", params)
                self._db.execute(f"DELETE FROM entity_mentions WHERE {condition}", params)

    def entity_mentions(self, entity_ids: Sequence[str]) -> dict[str, list[EntityMention]]:
        out: dict[str, list[EntityMention]] = {}
        for condition, params in self._dialect.in_batches("m.entity_id", entity_ids):
            rows = self._db.query(
                "SELECT m.entity_id, e.key, m.chunk_id, m.surface, m.type, m.description FROM entity_mentions m "
                "JOIN entities e ON e.id = m.entity_id JOIN chunks c ON c.id = m.chunk_id "
                f"JOIN documents d ON d.id = c.doc_id WHERE {condition} ORDER BY {_CHUNK_ORDER}",
                params,
            )
            for r in rows:
                out.setdefault(r[0], []).append(
                    EntityMention(entity_key=r[1], chunk_id=r[2], surface=r[3], type=r[4], description=r[5])
                )
        return out

    def relation_mentions(self, relation_ids: Sequence[str]) -> dict[str, list[RelationMention]]:
        out: dict[str, list[RelationMention]] = {}
        for condition, params in self._dialect.in_batches("m.relation_id", relation_ids):
            rows = self._db.query(
                "SELECT m.relation_id, s.key, t.key, m.forward, m.chunk_id, m.label, m.description, m.keywords, "
                "m.weight FROM relation_mentions m JOIN relations r ON r.id = m.relation_id "
                "JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id "
                f"JOIN chunks c ON c.id = m.chunk_id JOIN documents d ON d.id = c.doc_id "
                f"WHERE {condition} ORDER BY {_CHUNK_ORDER}",
                params,
            )
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
        """Upsert merged entities and clear their stale flag (``chunk_ids`` is derived, not stored).

        An entity without mentions is an orphan and goes at the next :meth:`delete_orphans`.
        """
        with self._db.transaction():
            self._db.executemany(
                "INSERT INTO entities(id, key, name, type, description, stale, metadata) VALUES (?,?,?,?,?,0,?) "
                "ON CONFLICT(id) DO UPDATE SET name = excluded.name, type = excluded.type, "
                "description = excluded.description, stale = 0, metadata = excluded.metadata",
                [
                    (e.id, e.key, e.name, e.type, e.description, json.dumps(e.metadata, sort_keys=True))
                    for e in entities
                ],
            )

    def mark_stale(self, entity_ids: Sequence[str], relation_ids: Sequence[str]) -> None:
        """Flag aggregates to be rebuilt by the next refresh (e.g. their summary was a fallback)."""
        with self._db.transaction():
            for table, ids in (("entities", entity_ids), ("relations", relation_ids)):
                for condition, params in self._dialect.in_batches("id", ids):
                    self._db.execute(f"UPDATE {table} SET stale = 1 WHERE {condition}", params)

    def save_relations(self, relations: Sequence[RelationRecord]) -> None:
        """Upsert merged relations and clear their stale flag; endpoints are stored in id order."""
        with self._db.transaction():
            self._db.executemany(
                "INSERT INTO relations(id, source_id, target_id, label, description, keywords, weight, stale) "
                "VALUES (?,?,?,?,?,?,?,0) ON CONFLICT(id) DO UPDATE SET label = excluded.label, "
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
        out: dict[str, list[str]] = {}
        sql = (
            f"SELECT DISTINCT m.{column}, m.chunk_id, c.doc_id, c.ord FROM {table} m JOIN chunks c ON c.id = m.chunk_id"
        )
        groups: Iterator[list[str] | None] = self._dialect.batches(ids) if ids is not None else iter([None])
        for batch in groups:
            condition, params = self._dialect.one_of(f"m.{column}", batch) if batch is not None else ("", [])
            where = f" WHERE {condition}" if batch is not None else ""
            for r in self._db.query(sql + where + " ORDER BY c.doc_id, c.ord", params):
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
        return self._relation_records(rows, self._provenance("relation_mentions", "relation_id", relation_ids))

    def relations_of(self, entity_ids: Sequence[str]) -> list[RelationRecord]:
        """Every relation touching one of ``entity_ids``."""
        unique = relations_touching(self._db, self._dialect, _RELATION_COLUMNS, entity_ids)
        provenance = self._provenance("relation_mentions", "relation_id", [r[0] for r in unique])
        return self._relation_records(unique, provenance)

    @staticmethod
    def _relation_records(rows: Sequence[Row], provenance: dict[str, list[str]]) -> list[RelationRecord]:
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

    def _select(self, sql: str, ids: Sequence[str] | None) -> list[Row]:
        if ids is None:
            return list(self._db.query(sql + " ORDER BY rowid"))
        found: dict[str, Row] = {}
        for condition, params in self._dialect.in_batches("id", ids):
            for r in self._db.query(sql + f" WHERE {condition}", params):
                found[r[0]] = r
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def entity_by_key(self, key: str) -> EntityRecord | None:
        entity_id = self._db.scalar("SELECT id FROM entities WHERE key = ?", (key,))
        if entity_id is None:
            return None
        found = self.entities([str(entity_id)])
        return found[0] if found else None

    def entity_names(self) -> list[tuple[str, str, str]]:
        """(id, key, name) of every entity, without descriptions or provenance: for checks over all names."""
        return [(r[0], r[1], r[2]) for r in self._db.query("SELECT id, key, name FROM entities ORDER BY rowid")]

    def entity_ids(self) -> list[str]:
        """Every entity id in creation order, without descriptions or provenance: what a caller pages
        through with :meth:`entities` so that memory follows the page, not the graph."""
        return [r[0] for r in self._db.query("SELECT id FROM entities ORDER BY rowid")]

    def relation_ids(self) -> list[str]:
        """Every relation id in creation order (see :meth:`entity_ids`)."""
        return [r[0] for r in self._db.query("SELECT id FROM relations ORDER BY rowid")]

    # -- lifecycle -------------------------------------------------------------------------------
    def stale_entity_ids(self) -> list[str]:
        return [r[0] for r in self._db.query("SELECT id FROM entities WHERE stale = 1 ORDER BY rowid")]

    def stale_relation_ids(self) -> list[str]:
        return [r[0] for r in self._db.query("SELECT id FROM relations WHERE stale = 1 ORDER BY rowid")]

    def delete_orphans(self) -> tuple[int, int]:
        """Delete entities with no mention left (their relations go by cascade), then relations with
        none; returns (entities deleted, relations deleted)."""
        with self._db.transaction():
            before = self._sizes()
            self._db.execute(
                "DELETE FROM entities WHERE NOT EXISTS "
                "(SELECT 1 FROM entity_mentions m WHERE m.entity_id = entities.id)"
            )
            self._db.execute(
                "DELETE FROM relations WHERE NOT EXISTS "
                "(SELECT 1 FROM relation_mentions m WHERE m.relation_id = relations.id)"
            )
            after = self._sizes()
        return before[0] - after[0], before[1] - after[1]

    def _sizes(self) -> tuple[int, int]:
        """(entities, relations): counted rather than read from a row count, which drivers report differently."""
        row = self._db.query("SELECT (SELECT COUNT(*) FROM entities), (SELECT COUNT(*) FROM relations)")[0]
        return int(row[0]), int(row[1])

    # -- extraction bookkeeping ------------------------------------------------------------------
    def mark_extracted(
        self, chunk_id: str, extractor: str, error: str | None, n_entities: int, n_relations: int
    ) -> None:
        """Record that ``extractor`` ran on the chunk (an ``error`` row means "retry next run").

        Marks of other extractors for the chunk are dropped: the graph holds one extraction per chunk.
        """
        with self._db.transaction():
            self._db.execute(
                "DELETE FROM chunk_extractions WHERE chunk_id = ? AND extractor <> ?", (chunk_id, extractor)
            )
            self._db.execute(
                "INSERT INTO chunk_extractions(chunk_id, extractor, error, n_entities, n_relations) "
                "VALUES (?,?,?,?,?) ON CONFLICT(chunk_id, extractor) DO UPDATE SET error = excluded.error, "
                "n_entities = excluded.n_entities, n_relations = excluded.n_relations",
                (chunk_id, extractor, error, n_entities, n_relations),
            )

    def chunks_needing_extraction(self, extractor: str) -> list[str]:
        """Chunks never extracted by ``extractor`` or whose last attempt failed, in ingestion order.

        Chunks whose graph was imported (extractor name ``import:...``) are never re-extracted: the
        import is their extraction, and re-extracting would replace a graph the user brought on purpose.
        """
        rows = self._db.query(
            "SELECT c.id FROM chunks c LEFT JOIN chunk_extractions x ON x.chunk_id = c.id AND x.extractor = ? "
            f"WHERE (x.chunk_id IS NULL OR x.error IS NOT NULL) AND {_NOT_IMPORTED} ORDER BY c.rowid",
            (extractor,),
        )
        return [r[0] for r in rows]

    def documents_needing_extraction(self, extractor: str) -> list[str]:
        """Documents with at least one chunk that :meth:`chunks_needing_extraction` would return."""
        rows = self._db.query(
            "SELECT DISTINCT c.doc_id FROM chunks c LEFT JOIN chunk_extractions x "
            "ON x.chunk_id = c.id AND x.extractor = ? WHERE (x.chunk_id IS NULL OR x.error IS NOT NULL) "
            f"AND {_NOT_IMPORTED} ORDER BY c.doc_id",
            (extractor,),
        )
        return [r[0] for r in rows]

    def extraction_errors(self, extractor: str, limit: int = 20) -> list[tuple[str, str]]:
        """(chunk id, error) of chunks whose last extraction failed, for reports."""
        rows = self._db.query(
            "SELECT chunk_id, error FROM chunk_extractions WHERE extractor = ? AND error IS NOT NULL "
            "ORDER BY chunk_id LIMIT ?",
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
        return {name: int(row[i]) for i, name in enumerate(names)}


def relations_touching(db: SqlDatabase, dialect: Dialect, columns: str, entity_ids: Sequence[str]) -> list[Row]:
    """``columns`` (the first one ``id``) of every relation with an endpoint among ``entity_ids``, once each,
    in creation order within each batch of ids (shared with the denoise repository's merges)."""
    rows: list[Row] = []
    for batch in dialect.batches(entity_ids):
        source, params = dialect.one_of("source_id", batch)
        target, _ = dialect.one_of("target_id", batch)
        sql = f"SELECT {columns} FROM relations WHERE {source} OR {target} ORDER BY rowid"
        rows.extend(db.query(sql, [*params, *params]))
    return list({r[0]: r for r in rows}.values())
