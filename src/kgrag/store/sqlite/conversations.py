"""The conversations table's SQLite DDL; the repository is :class:`kgrag.store.sql.conversations.SqlConversations`."""

from __future__ import annotations

CONVERSATIONS_DDL = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    turns TEXT NOT NULL DEFAULT '[]'
);
"""
