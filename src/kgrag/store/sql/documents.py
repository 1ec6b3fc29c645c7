"""Workspace metadata and documents, shared by both stores (columns are listed, rows read by position)."""

from __future__ import annotations

import json
import time

from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.store.sql.database import Dialect, Row, SqlDatabase

_COLUMNS = "id, source, title, content_hash, status, error, n_chars, metadata, updated_at"


class SqlMeta:
    """Key/value facts about the workspace (schema version, embedding model, dimension, probe verdicts)."""

    def __init__(self, db: SqlDatabase) -> None:
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


def _document(r: Row) -> DocumentRecord:
    return DocumentRecord(
        id=r[0],
        source=r[1],
        title=r[2],
        content_hash=r[3],
        status=DocumentStatus(r[4]),
        error=r[5],
        n_chars=r[6],
        metadata=json.loads(r[7]),
        updated_at=r[8],
    )


class SqlDocuments:
    """Documents table; deleting a document cascades to its chunks and their graph provenance."""

    def __init__(self, db: SqlDatabase, dialect: Dialect) -> None:
        self._db = db
        self._dialect = dialect

    def get(self, doc_id: str) -> DocumentRecord | None:
        rows = self._db.query(f"SELECT {_COLUMNS} FROM documents WHERE id = ?", (doc_id,))
        return _document(rows[0]) if rows else None

    def by_source(self, source: str) -> DocumentRecord | None:
        rows = self._db.query(f"SELECT {_COLUMNS} FROM documents WHERE source = ?", (source,))
        return _document(rows[0]) if rows else None

    def with_source_prefix(self, prefix: str) -> list[DocumentRecord]:
        condition, params = self._dialect.starts_with("source", prefix)
        rows = self._db.query(f"SELECT {_COLUMNS} FROM documents WHERE {condition} ORDER BY source", params)
        return [_document(r) for r in rows]

    def with_content_hash(self, content_hash: str) -> list[DocumentRecord]:
        rows = self._db.query(
            f"SELECT {_COLUMNS} FROM documents WHERE content_hash = ? ORDER BY source", (content_hash,)
        )
        return [_document(r) for r in rows]

    def list(self, status: DocumentStatus | None = None) -> list[DocumentRecord]:
        if status is None:
            rows = self._db.query(f"SELECT {_COLUMNS} FROM documents ORDER BY source")
        else:
            rows = self._db.query(f"SELECT {_COLUMNS} FROM documents WHERE status = ? ORDER BY source", (status.value,))
        return [_document(r) for r in rows]

    def upsert(self, doc: DocumentRecord) -> None:
        with self._db.transaction():
            self._db.execute(
                f"INSERT INTO documents({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE "
                "SET source=excluded.source, title=excluded.title, content_hash=excluded.content_hash, "
                "status=excluded.status, error=excluded.error, n_chars=excluded.n_chars, "
                "metadata=excluded.metadata, updated_at=excluded.updated_at",
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
