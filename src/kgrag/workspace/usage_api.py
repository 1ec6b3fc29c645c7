"""``ws.usage``: what the LLM cost, per stage and per run, and the cache's state."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kgrag.core.llm_usage import LedgerSummary
from kgrag.models.llm.batch_book import BatchBook
from kgrag.models.llm.status import llm_status
from kgrag.workspace.components import Components


@dataclass(frozen=True)
class LLMOverview:
    """The LLM line of ``kgrag status``."""

    provider: str
    model: str | None
    cache_entries: int
    calls: int
    cache_hit_rate: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    pending_batches: list[str] = field(default_factory=list)  # Batch API batches a killed run left unfinished

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class UsageAPI:
    """Reads the usage ledger and response cache the store keeps; creates no LLM client."""

    def __init__(self, parts: Components) -> None:
        self._parts = parts

    def summary(self, run_id: str | None = None) -> LedgerSummary:
        """Calls, tokens, retries, cache hits and money per stage and per run (one run with ``run_id``)."""
        return self._parts.store.llm_ledger.summary(run_id, prices=self._parts.prices())

    def overview(self) -> LLMOverview:
        store = self._parts.store
        status = llm_status(store.llm_cache, store.llm_ledger, self._parts.prices())
        config = self._parts.config.llm
        return LLMOverview(
            provider=config.provider,
            model=config.model,
            cache_entries=status.cache_entries,
            calls=status.calls,
            cache_hit_rate=round(status.hit_rate, 4),
            prompt_tokens=status.prompt_tokens,
            completion_tokens=status.completion_tokens,
            cost_usd=round(status.cost_usd, 6),
            pending_batches=[r.batch_id or r.id for r in BatchBook(store.meta).unfinished()],
        )
