"""DDL of the LLM layer's tables in the workspace database (added to ``SQLiteStore``'s schema list).

``llm_cache`` holds validated replies keyed by the request hash; ``llm_calls`` is the usage ledger, one
row per logical call (attempts folded in), so cost and cache hit rate survive the process.
"""

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
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS llm_calls_run_stage ON llm_calls(run_id, stage);
"""

LLM_SCHEMAS: tuple[str, ...] = (LLM_CACHE_DDL, LLM_LEDGER_DDL)
