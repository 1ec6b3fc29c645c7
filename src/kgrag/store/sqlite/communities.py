"""The community tables' SQLite DDL; the repository is :class:`kgrag.store.sql.communities.SqlCommunities`."""

from __future__ import annotations

COMMUNITIES_DDL = """
CREATE TABLE IF NOT EXISTS communities (
    id TEXT PRIMARY KEY,
    level INTEGER NOT NULL,
    parent_id TEXT,
    size INTEGER NOT NULL,
    children INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS communities_level ON communities(level);
CREATE TABLE IF NOT EXISTS community_members (
    community_id TEXT NOT NULL REFERENCES communities(id) ON DELETE CASCADE,
    entity_id TEXT NOT NULL,
    PRIMARY KEY (community_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS community_members_entity ON community_members(entity_id);
CREATE TABLE IF NOT EXISTS community_levels (
    level INTEGER PRIMARY KEY,
    communities INTEGER NOT NULL,
    modularity REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS community_reports (
    community_id TEXT PRIMARY KEY REFERENCES communities(id) ON DELETE CASCADE,
    level INTEGER NOT NULL,
    title TEXT NOT NULL,
    summary TEXT NOT NULL,
    findings TEXT NOT NULL DEFAULT '[]',
    rating REAL NOT NULL DEFAULT 0,
    method TEXT NOT NULL,
    chunk_ids TEXT NOT NULL DEFAULT '[]'
) WITHOUT ROWID;
"""
