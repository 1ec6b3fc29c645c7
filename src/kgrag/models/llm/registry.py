"""Build an :class:`LLMClient` from ``LLMConfig``: the only place that reads the API key variable.

``none`` and ``scripted`` never open a network connection; ``openai`` opens one lazily on the first call.
"""

from __future__ import annotations

import functools
import os
import random
import time
import uuid

from kgrag.config import LLMConfig
from kgrag.core.errors import ConfigError
from kgrag.core.llm_types import Prices
from kgrag.models.llm.base import ChatProvider, ResponseCache
from kgrag.models.llm.budget import TokenBudget
from kgrag.models.llm.cache import InMemoryResponseCache, SQLiteResponseCache
from kgrag.models.llm.calls import CallRunner
from kgrag.models.llm.client import ClientSettings, LLMClient
from kgrag.models.llm.estimate import EstimatingProvider
from kgrag.models.llm.ledger import InMemoryLedger, SQLiteLedger, UsageLedger
from kgrag.models.llm.none import NoneProvider
from kgrag.models.llm.ratelimit import CallLimits
from kgrag.models.llm.retry import RetryPolicy
from kgrag.models.llm.scripted import ScriptedProvider
from kgrag.models.llm.tokens import TextTokenCounter, default_token_counter
from kgrag.store.sqlite.database import Database


def new_run_id() -> str:
    """Sortable, unique run id: UTC time plus a random suffix."""
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:6]


def build_provider(cfg: LLMConfig) -> ChatProvider:
    """The configured provider; reads ``cfg.api_key_env`` from the environment for ``openai`` only."""
    if cfg.provider == "none":
        return NoneProvider()
    if cfg.provider == "scripted":
        return ScriptedProvider.from_file(cfg.scripted_file) if cfg.scripted_file else ScriptedProvider()
    if not cfg.model:
        raise ConfigError("llm.model is required when llm.provider = 'openai' (e.g. gpt-4o-mini, llama3.1:8b)")
    from kgrag.models.llm.http import OpenAICompatibleProvider

    return OpenAICompatibleProvider(
        cfg.base_url,
        os.environ.get(cfg.api_key_env) or None,
        api_key_header=cfg.api_key_header,
        api_key_env=cfg.api_key_env,
        timeout_s=cfg.timeout_s,
        max_connections=cfg.max_concurrency,
    )


def create_llm_client(
    cfg: LLMConfig,
    db: Database | None = None,
    run_id: str | None = None,
    *,
    provider: ChatProvider | None = None,
    estimate: bool = False,
    counter: TextTokenCounter | None = None,
) -> LLMClient:
    """A client for ``cfg``. With ``db`` the cache and ledger persist in the workspace database, else
    they live in memory. ``provider`` replaces the configured one (tests); ``estimate`` wraps it so
    nothing is sent and :meth:`LLMClient.estimate` reports what would have been."""
    chosen = provider if provider is not None else build_provider(cfg)
    get_counter = (lambda: counter) if counter is not None else functools.cache(default_token_counter)
    if estimate:
        chosen = EstimatingProvider(chosen, get_counter(), cfg.estimate_completion_tokens)
    cache: ResponseCache | None = None
    if cfg.cache_enabled:
        cache = SQLiteResponseCache(db) if db is not None else InMemoryResponseCache()
    ledger: UsageLedger = SQLiteLedger(db) if db is not None else InMemoryLedger()
    runner = CallRunner(
        provider=chosen,
        cache=cache,
        ledger=ledger,
        budget=TokenBudget(cfg.max_tokens_budget),
        limits=CallLimits(cfg.max_concurrency, cfg.requests_per_minute, cfg.tokens_per_minute),
        retry=RetryPolicy(cfg.max_retries, cfg.backoff_base_s, cfg.backoff_max_s),
        prices=Prices(cfg.price_prompt_per_1m, cfg.price_completion_per_1m),
        context_window=cfg.context_window,
        run_id=run_id or new_run_id(),
        counter=get_counter,
        rng=random.Random(),
    )
    settings = ClientSettings(
        model=cfg.model or chosen.name,
        temperature=cfg.temperature,
        max_output_tokens=cfg.max_output_tokens,
        json_mode=cfg.json_mode,
        prompts_dir=cfg.prompts_dir,
    )
    return LLMClient(runner, settings)
