"""The ``llm_cache`` table's SQLite DDL; the repository is :class:`kgrag.store.sql.llm_cache.SqlResponseCache`."""

from __future__ import annotations

LLM_CACHE_DDL = """
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    prompt_name TEXT,
    prompt_version TEXT,
    response TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created_at REAL NOT NULL
);
"""
