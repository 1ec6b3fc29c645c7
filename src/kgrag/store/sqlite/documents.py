"""SQLite repositories for workspace metadata and documents."""

from __future__ import annotations

import json
import sqlite3
import time

from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.store.sqlite.database import Database

META_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

DOCUMENTS_DDL = """
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    n_chars INTEGER NOT NULL DEFAULT 0,
    metadata TEXT NOT NULL DEFAULT '{}',
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_status ON documents(status);
"""


class SQLiteMeta:
    """Key/value facts about the workspace (schema version, embedding model, dimension)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, key: str) -> str | None:
        value = self._db.scalar("SELECT value FROM meta WHERE key = ?", (key,))
        return None if value is None else str(value)

    def set(self, key: str, value: str) -> None:
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )


def _row_to_document(r: sqlite3.Row) -> DocumentRecord:
    return DocumentRecord(
        id=r["id"],
        source=r["source"],
        title=r["title"],
        content_hash=r["content_hash"],
        status=DocumentStatus(r["status"]),
        error=r["error"],
        n_chars=r["n_chars"],
        metadata=json.loads(r["metadata"]),
        updated_at=r["updated_at"],
    )


class SQLiteDocuments:
    """Documents table; deleting a document cascades to its chunks (and, later, graph provenance)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, doc_id: str) -> DocumentRecord | None:
        rows = self._db.query("SELECT * FROM documents WHERE id = ?", (doc_id,))
        return _row_to_document(rows[0]) if rows else None

    def by_source(self, source: str) -> DocumentRecord | None:
        rows = self._db.query("SELECT * FROM documents WHERE source = ?", (source,))
        return _row_to_document(rows[0]) if rows else None

    def with_source_prefix(self, prefix: str) -> list[DocumentRecord]:
        rows = self._db.query(
            "SELECT * FROM documents WHERE substr(source, 1, ?) = ? ORDER BY source", (len(prefix), prefix)
        )
        return [_row_to_document(r) for r in rows]

    def list(self, status: DocumentStatus | None = None) -> list[DocumentRecord]:
        if status is None:
            rows = self._db.query("SELECT * FROM documents ORDER BY source")
        else:
            rows = self._db.query("SELECT * FROM documents WHERE status = ? ORDER BY source", (status.value,))
        return [_row_to_document(r) for r in rows]

    def upsert(self, doc: DocumentRecord) -> None:
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO documents(id, source, title, content_hash, status, error, n_chars, metadata, "
                "updated_at) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET source=excluded.source, "
                "title=excluded.title, content_hash=excluded.content_hash, status=excluded.status, "
                "error=excluded.error, n_chars=excluded.n_chars, metadata=excluded.metadata, "
                "updated_at=excluded.updated_at",
                (
                    doc.id,
                    doc.source,
                    doc.title,
                    doc.content_hash,
                    doc.status.value,
                    doc.error,
                    doc.n_chars,
                    json.dumps(doc.metadata, sort_keys=True),
                    doc.updated_at or time.time(),
                ),
            )

    def set_status(self, doc_id: str, status: DocumentStatus, error: str | None = None) -> None:
        with self._db.transaction():
            self._db.execute(
                "UPDATE documents SET status = ?, error = ?, updated_at = ? WHERE id = ?",
                (status.value, error, time.time(), doc_id),
            )

    def delete(self, doc_id: str) -> None:
        with self._db.transaction():
            self._db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))

    def count_by_status(self) -> dict[str, int]:
        rows = self._db.query("SELECT status, COUNT(*) FROM documents GROUP BY status")
        return {str(r[0]): int(r[1]) for r in rows}
