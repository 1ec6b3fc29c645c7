"""Embedded SQLite backend (the default system of record)."""

from kgrag.store.sqlite.database import Database
from kgrag.store.sqlite.store import SQLiteStore

__all__ = ["Database", "SQLiteStore"]
