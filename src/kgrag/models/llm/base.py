"""The small protocols the LLM layer is built from, and the errors providers raise.

A provider only knows how to turn one :class:`ChatRequest` into one :class:`ChatResponse` (one attempt);
retries, limits, caching, budgets and accounting live in the client, so every provider gets them for free
and each attempt is visible in the ledger.
"""

from __future__ import annotations

from typing import Protocol

from kgrag.core.errors import ModelError
from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.store.base import LLMCacheRepository, UsageLedgerRepository


class ProviderError(ModelError):
    """One failed attempt. ``retryable`` errors (429, 5xx, timeouts, dropped connections, unreadable
    bodies) are retried with backoff; the others (bad key, unknown model, bad request) stop at once."""

    def __init__(
        self, message: str, *, retryable: bool, status: int | None = None, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after_s = retry_after_s

    @property
    def short(self) -> str:
        """A compact label for the ledger's attempt list, e.g. ``429`` or ``timeout``."""
        return str(self.status) if self.status is not None else str(self).split(":", 1)[0][:40]


class LLMUnavailableError(ModelError):
    """Retries are exhausted: the endpoint is down or overloaded. The run stops; finished work is cached."""


class ChatProvider(Protocol):
    """Turns one request into one response, or raises :class:`ProviderError` for that attempt."""

    name: str
    available: bool

    def complete(self, request: ChatRequest) -> ChatResponse: ...

    def close(self) -> None: ...


# The cache and ledger the client writes to are store repositories (persistent in a workspace; the
# in-memory fakes live in kgrag.store.memory). These names are what the LLM layer calls them.
ResponseCache = LLMCacheRepository
UsageLedger = UsageLedgerRepository
