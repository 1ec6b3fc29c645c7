"""``ws.usage``: what the LLM cost, per stage and per run, and the cache's state."""

from __future__ import annotations

from kgrag.core.llm_usage import LedgerSummary
from kgrag.models.llm.status import LLMOverview, llm_overview
from kgrag.workspace.components import Components

__all__ = ["LLMOverview", "UsageAPI"]


class UsageAPI:
    """Reads the usage ledger and response cache the store keeps; creates no LLM client."""

    def __init__(self, parts: Components) -> None:
        self._parts = parts

    def summary(self, run_id: str | None = None) -> LedgerSummary:
        """Calls, tokens, retries, cache hits and money per stage and per run (one run with ``run_id``)."""
        return self._parts.store.llm_ledger.summary(run_id, prices=self._parts.prices())

    def overview(self) -> LLMOverview:
        """The configured provider and model, the cache, the calls and their cost, unfinished batches."""
        return llm_overview(self._parts.store, self._parts.config.llm, self._parts.prices())
