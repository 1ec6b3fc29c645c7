"""DDL of the graph tables: entities, relations, their per-chunk mentions and extraction marks.

Kept apart from the repository code because the schema *is* the provenance guarantee (cascades from
chunks, triggers that flag stale aggregates) and deserves to be read on its own; see
:mod:`kgrag.store.sql.graph` for what the code does with it.
"""

from __future__ import annotations

GRAPH_DDL = """
CREATE TABLE IF NOT EXISTS entities (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    stale INTEGER NOT NULL DEFAULT 1,
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS entities_stale ON entities(stale) WHERE stale = 1;
CREATE TABLE IF NOT EXISTS entity_mentions (
    rowid INTEGER PRIMARY KEY,
    entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    surface TEXT NOT NULL,
    type TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS entity_mentions_entity ON entity_mentions(entity_id);
CREATE INDEX IF NOT EXISTS entity_mentions_chunk ON entity_mentions(chunk_id);
CREATE TABLE IF NOT EXISTS relations (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    source_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    target_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    label TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    keywords TEXT NOT NULL DEFAULT '[]',
    weight REAL NOT NULL DEFAULT 0,
    stale INTEGER NOT NULL DEFAULT 1,
    CHECK (source_id < target_id),
    UNIQUE (source_id, target_id)
);
CREATE INDEX IF NOT EXISTS relations_target ON relations(target_id);
CREATE INDEX IF NOT EXISTS relations_stale ON relations(stale) WHERE stale = 1;
CREATE TABLE IF NOT EXISTS relation_mentions (
    rowid INTEGER PRIMARY KEY,
    relation_id TEXT NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    forward INTEGER NOT NULL DEFAULT 1,
    label TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    keywords TEXT NOT NULL DEFAULT '[]',
    weight REAL NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS relation_mentions_relation ON relation_mentions(relation_id);
CREATE INDEX IF NOT EXISTS relation_mentions_chunk ON relation_mentions(chunk_id);
CREATE TABLE IF NOT EXISTS chunk_extractions (
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    extractor TEXT NOT NULL,
    error TEXT,
    n_entities INTEGER NOT NULL DEFAULT 0,
    n_relations INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (chunk_id, extractor)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS entity_mentions_ai AFTER INSERT ON entity_mentions BEGIN
    UPDATE entities SET stale = 1 WHERE id = new.entity_id AND stale = 0;
END;
CREATE TRIGGER IF NOT EXISTS entity_mentions_ad AFTER DELETE ON entity_mentions BEGIN
    UPDATE entities SET stale = 1 WHERE id = old.entity_id AND stale = 0;
END;
CREATE TRIGGER IF NOT EXISTS relation_mentions_ai AFTER INSERT ON relation_mentions BEGIN
    UPDATE relations SET stale = 1 WHERE id = new.relation_id AND stale = 0;
END;
CREATE TRIGGER IF NOT EXISTS relation_mentions_ad AFTER DELETE ON relation_mentions BEGIN
    UPDATE relations SET stale = 1 WHERE id = old.relation_id AND stale = 0;
END;
"""
