"""In-memory LLM cache and usage ledger: the fakes of :class:`LLMCacheRepository` and
:class:`UsageLedgerRepository`.

They serve tests and one-off clients that have no workspace (``create_llm_client(cfg)`` with no store).
A workspace never uses them: its client always gets the store's own repositories, so a backend that
forgot them fails loudly instead of silently losing the cache and the ledger between runs.
"""

from __future__ import annotations

import threading

from kgrag.core.llm_types import ChatRequest, Prices
from kgrag.core.llm_usage import CachedResponse, CallRecord, LedgerSummary, Totals, build_summary


class InMemoryResponseCache:
    """Dict-backed :class:`kgrag.store.base.LLMCacheRepository`."""

    def __init__(self) -> None:
        self._items: dict[str, CachedResponse] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedResponse | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: str, request: ChatRequest, response: CachedResponse) -> None:
        with self._lock:
            self._items[key] = response

    def delete(self, key: str) -> None:
        with self._lock:
            self._items.pop(key, None)

    def count(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> int:
        with self._lock:
            gone = len(self._items)
            self._items.clear()
            return gone


class InMemoryLedger:
    """List-backed :class:`kgrag.store.base.UsageLedgerRepository`; ``records`` is public for inspection."""

    def __init__(self) -> None:
        self.records: list[CallRecord] = []
        self._lock = threading.Lock()

    def record(self, rec: CallRecord) -> None:
        with self._lock:
            self.records.append(rec)

    def summary(self, run_id: str | None = None, prices: Prices | None = None) -> LedgerSummary:
        with self._lock:
            chosen = [r for r in self.records if run_id is None or r.run_id == run_id]
        return build_summary(((r.run_id, r.stage, Totals.of(r)) for r in chosen), prices)

    def run_ids(self) -> list[str]:
        with self._lock:
            return list(dict.fromkeys(r.run_id for r in self.records))

    def calls(self, run_id: str | None = None) -> list[CallRecord]:
        with self._lock:
            return [r for r in self.records if run_id is None or r.run_id == run_id]
