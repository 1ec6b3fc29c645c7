"""Shared by the crash, fault and soak runs: an LLM workspace on the fake OpenAI server, a dump of every
table that must come out the same, and the health checks of a database after kills."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from kgrag import Workspace
from kgrag.testing.workspace_toml import write_workspace_toml

DB_NAME = "kgrag.sqlite3"
# Columns that legitimately differ between two runs of the same work: when it happened, insertion order.
VOLATILE_COLUMNS = frozenset({"rowid", "updated_at", "created_at"})
# Tables not compared row by row: FTS5 shadow tables (checked by the FTS integrity check), the autoincrement
# counter, and the usage ledger (one row per call made, so a resumed run has more; compared by request count).
SKIPPED_TABLES = ("chunks_fts", "sqlite_sequence", "llm_calls")


def llm_workspace(path: Path, base_url: str, **settings: str) -> Path:
    """A workspace with the fake embedder, LLM extraction, LLM summaries (small limit, so they happen) and
    the OpenAI provider at ``base_url``; ``settings`` add ``section.key = value`` TOML lines."""
    Workspace.init(path, embedding={"provider": "fake"}).close()
    lines = {
        "embedding.provider": '"fake"',
        "graph.extractor": '"llm"',
        "graph.max_description_tokens": "40",
        "llm.provider": '"openai"',
        "llm.providers.openai.base_url": f'"{base_url}"',
        "llm.model": '"test-model"',
        "llm.providers.openai.api_key_env": '"KGRAG_TEST_KEY"',
        "llm.backoff_base_s": "0.001",
        "llm.backoff_max_s": "0.01",
        "llm.max_retries": "6",
        "llm.timeout_s": "5",
        # the stand-in ignores max_tokens and its longest extraction replies pass the default 2400: with room
        # for them it answers within max_tokens as real servers do, so an injected cut reply reads as a
        # fault to ask again, never as a reply too long for its unit (which would split the unit)
        "llm.max_output_tokens": "8000",
        **settings,
    }
    return write_workspace_toml(path, lines)


def dump_tables(db_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table (but :data:`SKIPPED_TABLES`) as sorted rows without :data:`VOLATILE_COLUMNS`."""
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        tables: dict[str, list[tuple[Any, ...]]] = {}
        for name in names:
            if name.startswith(SKIPPED_TABLES):
                continue
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{name}")') if r[1] not in VOLATILE_COLUMNS]
            listed = ", ".join(f'"{c}"' for c in columns)
            rows = conn.execute(f'SELECT {listed} FROM "{name}"').fetchall()
            if name == "meta":  # what a server was found to accept is a cache of the server, not index data
                rows = [row for row in rows if not str(row[0]).startswith("llm_profile:")]
            tables[name] = sorted(rows, key=repr)
    return tables


def health_problems(db_path: Path) -> list[str]:
    """What is wrong with a database after kills: integrity, FTS sync, orphans, stale aggregates."""
    problems: list[str] = []
    conn = sqlite3.connect(str(db_path))
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity != "ok":
            problems.append(f"integrity_check: {integrity}")
        try:
            conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 1)")
        except sqlite3.DatabaseError as exc:
            problems.append(f"fts: {exc}")
        checks = {
            "foreign keys": "SELECT count(*) FROM pragma_foreign_key_check",
            "entities without mentions": "SELECT count(*) FROM entities e WHERE NOT EXISTS "
            "(SELECT 1 FROM entity_mentions m WHERE m.entity_id = e.id)",
            "relations without an endpoint": "SELECT count(*) FROM relations r WHERE r.source_id NOT IN "
            "(SELECT id FROM entities) OR r.target_id NOT IN (SELECT id FROM entities)",
            "stale aggregates": "SELECT (SELECT count(*) FROM entities WHERE stale = 1) + "
            "(SELECT count(*) FROM relations WHERE stale = 1)",
            "chunks without vectors": "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
            "(SELECT 1 FROM embeddings v WHERE v.text_hash = c.text_hash)",
            "failed extractions": "SELECT count(*) FROM chunk_extractions WHERE error IS NOT NULL",
        }
        for what, sql in checks.items():
            count = conn.execute(sql).fetchone()[0]
            if count:
                problems.append(f"{what}: {count}")
    finally:
        conn.rollback()
        conn.close()
    return problems


def differences(
    expected: dict[str, list[tuple[Any, ...]]],
    actual: dict[str, list[tuple[Any, ...]]],
    *,
    caches: tuple[str, ...] = (),
) -> list[str]:
    """Per table, how the rows differ (empty when the databases hold the same data). Tables named in
    ``caches`` need only hold every key (first two columns) of ``expected``: vectors of a description
    that a retry replaced stay cached by text, and a re-asked reply is cached with its own token counts."""
    found: list[str] = []
    for name in sorted(set(expected) | set(actual)):
        want, got = expected.get(name, []), actual.get(name, [])
        if name in caches and {row[:2] for row in want} <= {row[:2] for row in got}:
            continue
        if name in caches:
            keys = {row[:2] for row in got}
            found.extend(f"  missing key {row[:4]!r}" for row in want if row[:2] not in keys)
        if want != got:
            missing = len(set(want) - set(got))
            extra = len(set(got) - set(want))
            found.append(f"{name}: {len(want)} rows expected, {len(got)} found ({missing} missing, {extra} extra)")
            found.extend(f"  - {row!r}"[:300] for row in sorted(set(want) - set(got), key=repr)[:2])
            found.extend(f"  + {row!r}"[:300] for row in sorted(set(got) - set(want), key=repr)[:2])
    return found


def deep_file(root: Path, depth: int = 24) -> Path:
    """A file under ``depth`` directories of 200-character names (past PATH_MAX = 4096), made through
    directory descriptors since no single path to it can be passed to the system."""
    name = "d" * 200
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    return root / "/".join([name] * depth) / "deep.txt"
