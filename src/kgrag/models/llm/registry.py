"""Build an :class:`LLMClient` from ``LLMConfig``: the provider by registry name, the cache and ledger
from the caller.

The cache and ledger are passed in, never looked up: a workspace passes its store's repositories (they
persist with the workspace), and only a caller that passes nothing, a test or a one-off script, gets the
in-memory fakes. ``none`` and ``scripted`` never open a network connection; ``openai`` opens one lazily
on the first call.
"""

from __future__ import annotations

import functools
import random
import time
import uuid
from collections.abc import Callable

from pydantic import BaseModel

from kgrag.config import LLMConfig
from kgrag.core.llm_types import Prices
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.models.llm.base import ChatProvider, ResponseCache, UsageLedger
from kgrag.models.llm.budget import TokenBudget
from kgrag.models.llm.calls import CallRunner
from kgrag.models.llm.client import ClientSettings, LLMClient
from kgrag.models.llm.estimate import EstimatingProvider
from kgrag.models.llm.estimate_assumed import EstimateAssumptions
from kgrag.models.llm.ratelimit import CallLimits
from kgrag.models.llm.retry import RetryPolicy
from kgrag.models.llm.thinking_room import ThinkingRoom
from kgrag.models.llm.tokens import TextTokenCounter, default_token_counter
from kgrag.store.base import Store
from kgrag.store.memory import InMemoryLedger, InMemoryResponseCache


def new_run_id() -> str:
    """Sortable, unique run id: UTC time plus a random suffix."""
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:6]


ProviderFactory = Callable[[LLMConfig], ChatProvider]
LLM_PROVIDERS: RegistryKind[ProviderFactory] = RegistryKind("llm_provider")


def build_provider(cfg: LLMConfig, registry: Registry[ProviderFactory] | None = None) -> ChatProvider:
    """The provider ``cfg.provider`` names, made by its ``llm_provider`` registry factory (a workspace's
    registry, else built-ins and plug-ins; recording its exchanges to ``cfg.record_file`` when set)."""
    provider: ChatProvider = (registry or LLM_PROVIDERS.new()).create(cfg.provider, cfg)
    if cfg.record_file is not None and provider.available:
        from kgrag.models.llm.recording import RecordingProvider

        return RecordingProvider(provider, cfg.record_file)
    return provider


def create_llm_client(
    cfg: LLMConfig,
    store: Store | None = None,
    run_id: str | None = None,
    *,
    provider: ChatProvider | None = None,
    estimate: bool = False,
    counter: TextTokenCounter | None = None,
    assumptions: EstimateAssumptions | None = None,
    prompt_schemas: Registry[type[BaseModel]] | None = None,
) -> LLMClient:
    """A client for ``cfg``. With ``store`` the cache and ledger are the store's repositories (they
    persist with it); without one they are in-memory fakes. ``provider`` replaces the configured one
    (tests); ``estimate`` wraps it so nothing is sent and :meth:`LLMClient.estimate` reports what would
    have been, under ``assumptions`` (default: :func:`estimate_assumptions` of ``cfg``). ``prompt_schemas``
    is the registry its prompt files resolve ``output_schema`` in (a workspace's; default: built-ins and
    plug-ins)."""
    cache: ResponseCache = store.llm_cache if store is not None else InMemoryResponseCache()
    ledger: UsageLedger = store.llm_ledger if store is not None else InMemoryLedger()
    chosen = provider if provider is not None else build_provider(cfg)
    get_counter = (lambda: counter) if counter is not None else functools.cache(default_token_counter)
    if estimate:
        chosen = EstimatingProvider(chosen, get_counter(), assumptions or estimate_assumptions(cfg))
    runner = CallRunner(
        provider=chosen,
        cache=cache if cfg.cache_enabled else None,
        ledger=ledger,
        budget=TokenBudget(cfg.max_tokens_budget),
        limits=CallLimits(cfg.max_concurrency, cfg.requests_per_minute, cfg.tokens_per_minute),
        retry=RetryPolicy(cfg.max_retries, cfg.backoff_base_s, cfg.backoff_max_s),
        prices=Prices(cfg.price_prompt_per_1m, cfg.price_completion_per_1m, cfg.batch_price_share),
        context_window=cfg.context_window,
        run_id=run_id or new_run_id(),
        counter=get_counter,
        rng=random.Random(),
        thinking=ThinkingRoom(cfg.max_thinking_tokens),
    )
    settings = ClientSettings(
        model=cfg.model or chosen.name,
        temperature=cfg.temperature,
        max_output_tokens=cfg.max_output_tokens,
        json_mode=cfg.json_mode,
        prompts_dir=cfg.prompts_dir,
        prompt_schemas=prompt_schemas,
    )
    return LLMClient(runner, settings)


def estimate_assumptions(
    cfg: LLMConfig, summary_limit: int | None = None, *, gleaning: bool = True
) -> EstimateAssumptions:
    """The ``llm.estimate_*`` fields as the estimating provider's assumptions; ``summary_limit`` is
    ``graph.max_description_tokens`` (None: no summaries predicted), ``gleaning`` is
    ``graph.extractors.llm.gleaning``."""
    return EstimateAssumptions(
        completion_tokens=cfg.estimate_completion_tokens,
        completion_per_name=cfg.estimate_completion_per_name,
        glean_rate=cfg.estimate_glean_rate if gleaning else 0.0,
        glean_completion_share=cfg.estimate_glean_completion_share,
        description_tokens=cfg.estimate_description_tokens,
        summary_limit=summary_limit,
    )
