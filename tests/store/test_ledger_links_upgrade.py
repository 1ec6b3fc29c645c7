"""A workspace whose ``llm_calls`` table predates the ledger's links (``unit_key``, ``call_role``) gets the
columns when it is opened: every old row is kept as it was and reads unlinked; new rows are linked. The
PostgreSQL upgrade of the same table is in ``test_postgres_only.py``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kgrag.core.llm_usage import CallLink, CallRecord
from kgrag.models.llm.reply_stats import measure_replies
from kgrag.store.sqlite.store import SQLiteStore

# the table as released before the links: what an older workspace holds
OLD_LEDGER = """
CREATE TABLE llm_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, stage TEXT NOT NULL, provider TEXT NOT NULL,
    model TEXT NOT NULL, prompt_name TEXT, prompt_version TEXT, prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL, usage_source TEXT NOT NULL, latency_ms REAL NOT NULL,
    cache_hit INTEGER NOT NULL, estimated INTEGER NOT NULL, attempts INTEGER NOT NULL,
    attempt_errors TEXT NOT NULL DEFAULT '', error TEXT, created_at REAL NOT NULL
);
CREATE INDEX llm_calls_run_stage ON llm_calls(run_id, stage);
"""
CUT = "the reply was cut off at the token limit; give a shorter complete answer"
OLD_ROWS = [  # a unit cut once, its re-ask accepted; another unit clean
    ("old", "index.extract", "openai", "m", "extract_graph", "3", 900, 2400, "api", 5.0, 0, 0, 1, "", CUT, 1.0),
    ("old", "index.extract", "openai", "m", "extract_graph", "3", 950, 1800, "api", 5.0, 0, 0, 2, "429", None, 2.0),
    ("old", "index.extract", "openai", "m", "extract_graph", "3", 900, 1500, "api", 5.0, 0, 0, 1, "", None, 3.0),
]


def _old_workspace(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(OLD_LEDGER)
    marks = ", ".join("?" * 16)
    conn.executemany(
        "INSERT INTO llm_calls (run_id, stage, provider, model, prompt_name, prompt_version, prompt_tokens, "
        "completion_tokens, usage_source, latency_ms, cache_hit, estimated, attempts, attempt_errors, error, "
        f"created_at) VALUES ({marks})",
        OLD_ROWS,
    )
    conn.commit()
    conn.close()


def test_an_old_ledger_gets_the_link_columns_and_keeps_every_row(tmp_path: Path) -> None:
    path = tmp_path / "kgrag.sqlite3"
    _old_workspace(path)
    store = SQLiteStore(path)
    old = store.llm_ledger.calls()
    assert [(r.run_id, r.prompt_tokens, r.completion_tokens, r.attempts, r.attempt_errors, r.error) for r in old] == [
        (row[0], row[6], row[7], row[12], tuple(e for e in row[13].split(",") if e), row[14]) for row in OLD_ROWS
    ]
    assert all(r.link is None for r in old)
    new = CallRecord("new", "index.extract", "openai", "m", 900, 700, "api", 4.0, False, 1, unit_key="k1",
                     call_role="first")  # fmt: skip
    store.llm_ledger.record(new)
    store.close()

    again = SQLiteStore(path)  # opening an upgraded workspace changes nothing
    rows = again.llm_ledger.calls()
    assert rows[:3] == old and rows[3] == new and rows[3].link == CallLink("k1", "first")
    columns = [r[1] for r in again.db.query("PRAGMA table_info(llm_calls)")]
    assert columns[-2:] == ["unit_key", "call_role"] and len(columns) == 19
    # the calibration reads the old rows as before (inferred) and the new one as counted
    stats = measure_replies(list(reversed(rows)), model="m", stage="index.extract")
    assert stats is not None and stats.linked == 1 and stats.follow_ups == 1.5  # the old cut reply, inferred
    again.close()
