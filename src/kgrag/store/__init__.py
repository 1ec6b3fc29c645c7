"""Storage: protocols, records and backends (SQLite built in; others register by name)."""

from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus, ScoredId
from kgrag.store.base import EvalRunRepository, LLMCacheRepository, Store, UsageLedgerRepository
from kgrag.store.memory import InMemoryLedger, InMemoryResponseCache
from kgrag.store.registry import open_store

__all__ = [
    "ChunkRecord",
    "DocumentRecord",
    "DocumentStatus",
    "EvalRunRepository",
    "InMemoryLedger",
    "InMemoryResponseCache",
    "LLMCacheRepository",
    "ScoredId",
    "Store",
    "UsageLedgerRepository",
    "open_store",
]
