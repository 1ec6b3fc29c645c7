"""Factories of the built-in LLM providers: the ``llm_provider`` registry entries (see
:data:`kgrag.core.builtins.KINDS`).

Each takes the ``[llm]`` section and returns a :class:`ChatProvider`. A plug-in provider is one more
function of this shape, registered under the ``kgrag.llm_providers`` entry-point group; nothing else in
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
from kgrag.models.llm.scripted import ScriptedProvider


def none_provider(cfg: LLMConfig) -> ChatProvider:
    """No LLM: every stage takes its LLM-free path."""
    return NoneProvider()


def scripted_provider(cfg: LLMConfig) -> ChatProvider:
    """Answers from ``llm.scripted_file`` (or from nothing: every request fails until rules are added)."""
    return ScriptedProvider.from_file(cfg.scripted_file) if cfg.scripted_file else ScriptedProvider()


def openai_provider(cfg: LLMConfig) -> ChatProvider:
    """Any OpenAI-compatible ``/chat/completions`` endpoint; the HTTP client opens on the first call."""
    if not cfg.model:
        raise ConfigError("llm.model is required when llm.provider = 'openai' (e.g. gpt-4o-mini, llama3.1:8b)")
    return OpenAICompatibleProvider(
        cfg.base_url,
        os.environ.get(cfg.api_key_env) or None,
        api_key_header=cfg.api_key_header,
        api_key_env=cfg.api_key_env,
        timeout_s=cfg.timeout_s,
        max_connections=cfg.max_concurrency,
        json_mode=cfg.json_mode,
        model=cfg.model,
    )
