"""DDL of graph denoising: aliases (merged identities), dropped relations, runs, logs, undo snapshots.

``entity_aliases`` and ``denoise_dropped`` are read by :class:`kgrag.store.sql.graph.SqlGraph` when
mentions are added, so a later re-indexing maps a merged alias to its canonical entity and does not bring
back a relation that reflection removed. Snapshot tables copy the graph tables column for column, rowids
included, with untyped columns (no affinity conversion), which is what lets undo restore them byte for byte.
"""

from __future__ import annotations

from kgrag.store.sql.denoise import snapshot_column

# table -> columns copied by a snapshot, in order (``rowid`` is stored as ``row_id``)
SNAPSHOT_TABLES: dict[str, tuple[str, ...]] = {
    "entities": ("rowid", "id", "key", "name", "type", "description", "stale", "metadata"),
    "entity_mentions": ("rowid", "entity_id", "chunk_id", "surface", "type", "description"),
    "relations": ("rowid", "id", "source_id", "target_id", "label", "description", "keywords", "weight", "stale"),
    "relation_mentions": ("rowid", "relation_id", "chunk_id", "forward", "label", "description", "keywords", "weight"),
    "entity_aliases": ("alias_key", "canonical_id", "canonical_key", "run_id"),
    "denoise_dropped": ("relation_id", "run_id"),
}


def _snapshot_ddl() -> str:
    parts = []
    for table, columns in SNAPSHOT_TABLES.items():
        cols = ", ".join(snapshot_column(c) for c in columns)
        parts.append(f"CREATE TABLE IF NOT EXISTS denoise_snap_{table} (snap_run TEXT NOT NULL, {cols});")
        parts.append(f"CREATE INDEX IF NOT EXISTS denoise_snap_{table}_run ON denoise_snap_{table}(snap_run);")
    return "\n".join(parts)


DENOISE_DDL = """
CREATE TABLE IF NOT EXISTS entity_aliases (
    alias_key TEXT PRIMARY KEY,
    canonical_id TEXT NOT NULL,
    canonical_key TEXT NOT NULL,
    run_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entity_aliases_canonical ON entity_aliases(canonical_id);
CREATE TABLE IF NOT EXISTS denoise_dropped (
    relation_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS denoise_runs (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL,
    status TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    summary TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS denoise_merges (
    rowid INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    canonical_id TEXT NOT NULL,
    canonical_name TEXT NOT NULL,
    alias_id TEXT NOT NULL,
    alias_key TEXT NOT NULL,
    alias_name TEXT NOT NULL,
    score REAL NOT NULL,
    mode TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS denoise_merges_run ON denoise_merges(run_id);
CREATE TABLE IF NOT EXISTS relation_scores (
    rowid INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    relation_id TEXT NOT NULL,
    source_name TEXT NOT NULL,
    target_name TEXT NOT NULL,
    label TEXT NOT NULL,
    score REAL NOT NULL,
    reason TEXT NOT NULL,
    method TEXT NOT NULL,
    dropped INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS relation_scores_run ON relation_scores(run_id);
""" + _snapshot_ddl()
