"""The chat-LLM layer: providers, caching, usage ledger, limits, retries, budget and estimates.

Start with :func:`create_llm_client` and the API summary in :mod:`kgrag.models.llm.client`.
"""

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
from kgrag.models.llm.estimate import Estimate, EstimateAssumptions, EstimatingProvider
from kgrag.models.llm.json_repair import JSONRepairError, Repaired, repair_json
from kgrag.models.llm.none import NoneProvider, llm_free_note
from kgrag.models.llm.recording import RecordingProvider
from kgrag.models.llm.registry import build_provider, create_llm_client, estimate_assumptions, new_run_id
from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule, replay_key
from kgrag.models.llm.status import LLMStatus, llm_status
from kgrag.store.memory import InMemoryLedger, InMemoryResponseCache

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
