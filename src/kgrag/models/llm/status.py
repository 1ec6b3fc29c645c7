"""What ``kgrag status`` shows about the LLM layer: cache size and hit rate, calls, tokens, last run."""

from __future__ import annotations

from dataclasses import dataclass

from kgrag.core.llm_types import Prices
from kgrag.models.llm.base import ResponseCache, UsageLedger


@dataclass(frozen=True)
class LLMStatus:
    """Workspace-wide LLM facts; ``hit_rate`` is cache hits over all recorded calls (0 when none)."""

    cache_entries: int
    calls: int
    cache_hits: int
    hit_rate: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    runs: int
    last_run: str | None

    def line(self) -> str:
        return (
            f"LLM: {self.calls} calls in {self.runs} runs, cache {self.cache_entries} entries, "
            f"hit rate {self.hit_rate:.0%}, {self.prompt_tokens} prompt + {self.completion_tokens} completion "
            f"tokens, ${self.cost_usd:.4f}"
        )


def llm_status(cache: ResponseCache, ledger: UsageLedger, prices: Prices | None = None) -> LLMStatus:
    """Summarise a cache and a ledger (a workspace passes its store's ``llm_cache`` and ``llm_ledger``)."""
    total = ledger.summary(prices=prices).total
    runs = ledger.run_ids()
    return LLMStatus(
        cache_entries=cache.count(),
        calls=total.calls,
        cache_hits=total.cache_hits,
        hit_rate=total.hit_rate,
        prompt_tokens=total.prompt_tokens,
        completion_tokens=total.completion_tokens,
        cost_usd=total.cost_usd,
        runs=len(runs),
        last_run=runs[-1] if runs else None,
    )
