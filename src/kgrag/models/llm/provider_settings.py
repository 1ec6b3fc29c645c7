"""Settings models of the built-in LLM providers that have knobs of their own: ``[llm.providers.openai]``
and ``[llm.providers.scripted]``.

What every provider shares (the model, timeouts, concurrency, retries, the context window, output size,
temperature, JSON mode, caching, recording, prices and the Batch API run mode) stays in ``[llm]``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from kgrag.config.base import Section


class OpenAIProviderSettings(Section):
    """Any OpenAI-compatible `/chat/completions` endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp server,
    LM Studio); `llm.model` is required."""

    base_url: str = Field(
        "https://api.openai.com/v1",
        description="Endpoint base URL ending before `/chat/completions`, e.g. `http://localhost:11434/v1` "
        "(Ollama), `http://localhost:8000/v1` (vLLM), `http://localhost:1234/v1` (LM Studio).",
    )
    api_key_env: str = Field(
        "OPENAI_API_KEY",
        description="Environment variable holding the key, read when the client is built. Unset is fine for "
        "local servers that need no key.",
    )
    api_key_header: Literal["bearer", "api-key"] = Field(
        "bearer",
        description="`bearer` sends `Authorization: Bearer <key>`; `api-key` sends `api-key: <key>` "
        "(Azure OpenAI keys).",
    )


class ScriptedProviderSettings(Section):
    """Replies read from a JSONL file instead of a model (tests, offline replays); never touches the network."""

    file: Path | None = Field(
        None,
        description="JSONL replay file for the `scripted` provider (recorded exchanges or rules).",
    )
