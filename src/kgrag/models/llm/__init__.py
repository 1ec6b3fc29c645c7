"""The chat-LLM layer: providers, caching, usage ledger, limits, retries, budget and estimates.

Start with :func:`create_llm_client` and the API summary in :mod:`kgrag.models.llm.client`.

The names below resolve on first use (PEP 562): importing one submodule (``kgrag status`` reads the usage
ledger through :mod:`.status`) must not load the client, the providers and JSON repair with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgrag.core.llm_types import (
        ChatRequest,
        ChatResponse,
        ChatResult,
        Message,
        Prices,
        PromptRef,
        StructuredResult,
        Usage,
    )
    from kgrag.core.llm_usage import CachedResponse, CallRecord, LedgerSummary, Totals
    from kgrag.models.llm.base import ChatProvider, LLMUnavailableError, ProviderError, ResponseCache, UsageLedger
    from kgrag.models.llm.budget import TokenBudget, check_context_window
    from kgrag.models.llm.client import ClientSettings, LLMClient
    from kgrag.models.llm.estimate import Estimate, EstimatingProvider
    from kgrag.models.llm.estimate_assumed import EstimateAssumptions
    from kgrag.models.llm.json_repair import JSONRepairError, Repaired, repair_json
    from kgrag.models.llm.none import NoneProvider, llm_free_note
    from kgrag.models.llm.recording import RecordingProvider
    from kgrag.models.llm.registry import build_provider, create_llm_client, estimate_assumptions, new_run_id
    from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule, replay_key
    from kgrag.models.llm.status import LLMStatus, llm_status
    from kgrag.store.memory import InMemoryLedger, InMemoryResponseCache

_WHERE = {
    "CachedResponse": "kgrag.core.llm_usage",
    "CallRecord": "kgrag.core.llm_usage",
    "ChatProvider": "kgrag.models.llm.base",
    "ChatRequest": "kgrag.core.llm_types",
    "ChatResponse": "kgrag.core.llm_types",
    "ChatResult": "kgrag.core.llm_types",
    "ClientSettings": "kgrag.models.llm.client",
    "Estimate": "kgrag.models.llm.estimate",
    "EstimateAssumptions": "kgrag.models.llm.estimate_assumed",
    "EstimatingProvider": "kgrag.models.llm.estimate",
    "InMemoryLedger": "kgrag.store.memory",
    "InMemoryResponseCache": "kgrag.store.memory",
    "JSONRepairError": "kgrag.models.llm.json_repair",
    "LLMClient": "kgrag.models.llm.client",
    "LLMStatus": "kgrag.models.llm.status",
    "LLMUnavailableError": "kgrag.models.llm.base",
    "LedgerSummary": "kgrag.core.llm_usage",
    "Message": "kgrag.core.llm_types",
    "NoneProvider": "kgrag.models.llm.none",
    "Prices": "kgrag.core.llm_types",
    "PromptRef": "kgrag.core.llm_types",
    "ProviderError": "kgrag.models.llm.base",
    "RecordingProvider": "kgrag.models.llm.recording",
    "Repaired": "kgrag.models.llm.json_repair",
    "ResponseCache": "kgrag.models.llm.base",
    "ScriptRule": "kgrag.models.llm.scripted",
    "ScriptedProvider": "kgrag.models.llm.scripted",
    "StructuredResult": "kgrag.core.llm_types",
    "TokenBudget": "kgrag.models.llm.budget",
    "Totals": "kgrag.core.llm_usage",
    "Usage": "kgrag.core.llm_types",
    "UsageLedger": "kgrag.models.llm.base",
    "build_provider": "kgrag.models.llm.registry",
    "check_context_window": "kgrag.models.llm.budget",
    "create_llm_client": "kgrag.models.llm.registry",
    "estimate_assumptions": "kgrag.models.llm.registry",
    "llm_free_note": "kgrag.models.llm.none",
    "llm_status": "kgrag.models.llm.status",
    "new_run_id": "kgrag.models.llm.registry",
    "repair_json": "kgrag.models.llm.json_repair",
    "replay_key": "kgrag.models.llm.scripted",
}

__all__ = [
    "CachedResponse",
    "CallRecord",
    "ChatProvider",
    "ChatRequest",
    "ChatResponse",
    "ChatResult",
    "ClientSettings",
    "Estimate",
    "EstimateAssumptions",
    "EstimatingProvider",
    "InMemoryLedger",
    "InMemoryResponseCache",
    "JSONRepairError",
    "LLMClient",
    "LLMStatus",
    "LLMUnavailableError",
    "LedgerSummary",
    "Message",
    "NoneProvider",
    "Prices",
    "PromptRef",
    "ProviderError",
    "RecordingProvider",
    "Repaired",
    "ResponseCache",
    "ScriptRule",
    "ScriptedProvider",
    "StructuredResult",
    "TokenBudget",
    "Totals",
    "Usage",
    "UsageLedger",
    "build_provider",
    "check_context_window",
    "create_llm_client",
    "estimate_assumptions",
    "llm_free_note",
    "llm_status",
    "new_run_id",
    "repair_json",
    "replay_key",
]


def __getattr__(name: str) -> Any:
    """Import the submodule that defines ``name`` when it is first asked for."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
