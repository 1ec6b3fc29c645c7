"""What ``kgrag status`` shows about the LLM layer: cache size and hit rate, calls, tokens, last run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from kgrag.core.llm_types import Prices
from kgrag.models.llm.base import ResponseCache, UsageLedger

if TYPE_CHECKING:
    from kgrag.config.llm import LLMConfig
    from kgrag.store.base import Store


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
    server: dict[str, Any] | None = None
    """What kgrag learnt about the configured endpoint and model (its kind, the JSON mode it takes, the ones
    it refused, its context window), as kept in the workspace; None before any call to it."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def llm_overview(store: Store, config: LLMConfig, prices: Prices) -> LLMOverview:
    """The configured provider and model with :func:`llm_status` of ``store`` and its unfinished batches."""
    from kgrag.models.llm.batch_book import BatchBook

    status = llm_status(store.llm_cache, store.llm_ledger, prices)
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
        server=learnt_server(store, config),
    )


def learnt_server(store: Store, config: LLMConfig) -> dict[str, Any] | None:
    """The stored profile of the configured OpenAI-compatible endpoint and model, as plain data."""
    if config.provider != "openai" or not config.model:
        return None
    from kgrag.models.llm.capabilities import ServerProfile, profile_key
    from kgrag.models.llm.provider_settings import OpenAIProviderSettings

    own = config.entry_settings("providers", "openai", OpenAIProviderSettings)
    profile = ServerProfile.from_json(store.meta.get(profile_key(own.base_url, config.model)))
    if profile is None:
        return None
    return {
        "kind": profile.server,
        "json_mode": profile.json_mode(config.json_mode),
        "rejected": list(profile.rejected),
        "context_window": profile.context_window,
    }
