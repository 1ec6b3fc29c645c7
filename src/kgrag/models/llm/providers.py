"""Factories of the built-in LLM providers: the ``llm_provider`` registry entries (see
:data:`kgrag.core.builtins.KINDS`).

Each takes the ``[llm]`` section (its own ``[llm.providers.<name>]`` table read with
:meth:`~kgrag.config.base.Section.entry_settings`) and returns a :class:`ChatProvider`. A plug-in provider is
one more function of this shape, registered under the ``kgrag.llm_providers`` entry-point group; nothing else in
kgrag changes. This is the only place that reads the API key variable, and it does so when the provider
is built, never at import time.
"""

from __future__ import annotations

import os

from kgrag.config import LLMConfig
from kgrag.core.errors import ConfigError
from kgrag.models.llm.base import ChatProvider
from kgrag.models.llm.http import OpenAICompatibleProvider
from kgrag.models.llm.none import NoneProvider
from kgrag.models.llm.provider_settings import OpenAIProviderSettings, ScriptedProviderSettings
from kgrag.models.llm.scripted import ScriptedProvider


def none_provider(cfg: LLMConfig) -> ChatProvider:
    """No LLM: every stage takes its LLM-free path."""
    return NoneProvider()


def scripted_provider(cfg: LLMConfig) -> ChatProvider:
    """Answers from ``llm.providers.scripted.file`` (or from nothing: every request fails until rules are added)."""
    own = cfg.entry_settings("providers", "scripted", ScriptedProviderSettings)
    return ScriptedProvider.from_file(own.file) if own.file else ScriptedProvider()


def openai_provider(cfg: LLMConfig) -> ChatProvider:
    """Any OpenAI-compatible ``/chat/completions`` endpoint; the HTTP client opens on the first call."""
    if not cfg.model:
        raise ConfigError("llm.model is required when llm.provider = 'openai' (e.g. gpt-4o-mini, llama3.1:8b)")
    own = cfg.entry_settings("providers", "openai", OpenAIProviderSettings)
    return OpenAICompatibleProvider(
        own.base_url,
        os.environ.get(own.api_key_env) or None,
        api_key_header=own.api_key_header,
        api_key_env=own.api_key_env,
        timeout_s=cfg.timeout_s,
        max_connections=cfg.max_concurrency,
        json_mode=cfg.json_mode,
        model=cfg.model,
    )
