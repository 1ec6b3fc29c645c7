"""The ``llm_calls`` table's SQLite DDL; the repository is :class:`kgrag.store.sql.llm_ledger.SqlLedger`.

A column added after the table was first released is also in :data:`LLM_LEDGER_ADDED`: a workspace
created before it gets the column when it is opened (``ALTER TABLE ... ADD COLUMN`` in the transaction that
creates the schema; its rows keep their values and read NULL in the new column)."""

from __future__ import annotations

LLM_LEDGER_DDL = """
CREATE TABLE IF NOT EXISTS llm_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    stage TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_name TEXT,
    prompt_version TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    usage_source TEXT NOT NULL,
    latency_ms REAL NOT NULL,
    cache_hit INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    attempt_errors TEXT NOT NULL DEFAULT '',
    error TEXT,
    created_at REAL NOT NULL,
    unit_key TEXT,
    call_role TEXT
);
CREATE INDEX IF NOT EXISTS llm_calls_run_stage ON llm_calls(run_id, stage);
"""

# (table, column, declaration) added since the table's first release, oldest first
LLM_LEDGER_ADDED: tuple[tuple[str, str, str], ...] = (
    ("llm_calls", "unit_key", "TEXT"),
    ("llm_calls", "call_role", "TEXT"),
)
