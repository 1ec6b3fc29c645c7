"""The evaluation tables' SQLite DDL; the repository is :class:`kgrag.store.sql.eval_runs.SqlEvalRuns`."""

from __future__ import annotations

EVAL_RUNS_DDL = """
CREATE TABLE IF NOT EXISTS eval_runs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    created_at REAL NOT NULL,
    dataset TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    payload TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS eval_scores (
    run_id TEXT NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
    run_index INTEGER NOT NULL,
    pipeline TEXT NOT NULL,
    question_id TEXT NOT NULL,
    question_type TEXT NOT NULL,
    metric TEXT NOT NULL,
    value REAL,
    note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS eval_scores_run ON eval_scores(run_id);
CREATE TABLE IF NOT EXISTS eval_traces (
    run_id TEXT NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
    run_index INTEGER NOT NULL,
    pipeline TEXT NOT NULL,
    question_id TEXT NOT NULL,
    record TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS eval_traces_run ON eval_traces(run_id, question_id);
"""
