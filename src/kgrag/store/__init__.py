"""Storage: protocols, records and backends (SQLite built in; others register by name)."""

from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus, ScoredId
from kgrag.store.base import Store
from kgrag.store.registry import open_store

__all__ = ["ChunkRecord", "DocumentRecord", "DocumentStatus", "ScoredId", "Store", "open_store"]
