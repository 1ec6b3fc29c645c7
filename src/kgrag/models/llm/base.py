"""The small protocols the LLM layer is built from, and the errors providers raise.

A provider only knows how to turn one :class:`ChatRequest` into one :class:`ChatResponse` (one attempt);
retries, limits, caching, budgets and accounting live in the client, so every provider gets them for free
and each attempt is visible in the ledger.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import JsonValue

from kgrag.core.errors import ModelError
from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.store.base import LLMCacheRepository, UsageLedgerRepository

if TYPE_CHECKING:
    from kgrag.models.llm.batch_api import BatchAPI


class ProviderError(ModelError):
    """One failed attempt. ``retryable`` errors (429, 5xx, timeouts, dropped connections, unreadable
    bodies) are retried with backoff; the others (bad key, unknown model, bad request) stop at once."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after_s: float | None = None,
        unreachable: bool = False,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after_s = retry_after_s
        self.unreachable = unreachable
        """No connection could be opened (refused, unknown host): a wrong URL or a server not running, not
        an overloaded one. Still retried, since a server that is starting opens its port a moment later."""

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


@runtime_checkable
class WrappingProvider(Protocol):
    """A provider standing in front of another one (recording, estimating): it names the one it wraps."""

    @property
    def inner(self) -> ChatProvider: ...


def innermost(provider: ChatProvider) -> ChatProvider:
    """The provider that talks to the server, inside any :class:`WrappingProvider` layers."""
    while isinstance(provider, WrappingProvider):
        provider = provider.inner
    return provider


@runtime_checkable
class BatchCapable(Protocol):
    """A provider whose server also takes requests through a Batch API (``kgrag index --batch``): it says
    how one request looks on the wire and opens the Batch API with its own endpoint and key."""

    def wire_body(self, request: ChatRequest) -> dict[str, JsonValue]: ...

    def batch_api(self) -> BatchAPI: ...


def batch_capability(provider: ChatProvider) -> BatchCapable | None:
    """The batch-capable provider behind ``provider`` (through any wrappers), or None when it has none."""
    found = innermost(provider)
    return found if isinstance(found, BatchCapable) else None


# The cache and ledger the client writes to are store repositories (persistent in a workspace; the
# in-memory fakes live in kgrag.store.memory). These names are what the LLM layer calls them.
ResponseCache = LLMCacheRepository
UsageLedger = UsageLedgerRepository
