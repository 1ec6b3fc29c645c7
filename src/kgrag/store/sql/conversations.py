"""Conversations as one table of the workspace database: a row per conversation, its turns as JSON
(a conversation is read and written whole; it is never queried by turn)."""

from __future__ import annotations

import json

from kgrag.core.conversation_records import ConversationRecord, ConversationTurn
from kgrag.store.sql.database import Row, SqlDatabase

_COLUMNS = "id, created_at, updated_at, title, turns"


class SqlConversations:
    """The ``conversations`` table; writes are bookkeeping (no hot-index reload)."""

    def __init__(self, db: SqlDatabase) -> None:
        self._db = db

    def save(self, conversation: ConversationRecord) -> None:
        record = conversation.to_dict()
        with self._db.transaction(content=False):
            self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation.id,))
            self._db.execute(
                f"INSERT INTO conversations ({_COLUMNS}) VALUES (?,?,?,?,?)",
                (
                    conversation.id,
                    conversation.created_at,
                    conversation.updated_at,
                    conversation.title,
                    json.dumps(record["turns"], ensure_ascii=False),
                ),
            )

    def get(self, conversation_id: str) -> ConversationRecord | None:
        rows = self._db.query(f"SELECT {_COLUMNS} FROM conversations WHERE id = ?", (conversation_id,))
        return _record(rows[0]) if rows else None

    def list(self) -> list[ConversationRecord]:
        rows = self._db.query(f"SELECT {_COLUMNS} FROM conversations ORDER BY updated_at DESC, id DESC")
        return [_record(row) for row in rows]

    def delete(self, conversation_id: str) -> bool:
        with self._db.transaction(content=False):
            existed = self._db.scalar("SELECT COUNT(*) FROM conversations WHERE id = ?", (conversation_id,))
            self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
        return bool(existed)


def _record(row: Row) -> ConversationRecord:
    turns = tuple(ConversationTurn.from_dict(t) for t in json.loads(str(row[4])))
    return ConversationRecord(str(row[0]), float(str(row[1])), float(str(row[2])), str(row[3]), turns)
