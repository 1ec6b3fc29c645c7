"""LLM requests of a Ray indexing run, sent by a Ray actor while the driver's client keeps the books.

Why the LLM extractor does not run *in* Ray workers: everything that must hold for the whole run —
the response cache (a resumed run must not pay twice), the usage ledger, the token budget,
``llm.max_concurrency`` and the rate limits — lives in the workspace's :class:`LLMClient` on the driver.
Copies of it in N workers would either overrun those limits N-fold or need splitting them (a budget
cannot be split without stranding tokens). So the client stays on the driver and only the provider
call, the part that waits on the network, moves: one Ray actor holding the provider answers up to
``llm.max_concurrency`` requests at once (threads), and the driver's client never has more in flight.
Extraction, summaries and community reports all go through it, and the request count equals a local
run's because the same client makes the same calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.core.progress import Progress
from kgrag.models.llm.base import ChatProvider, ProviderError
from kgrag.models.llm.client import LLMClient

ErrorReply = tuple[str, bool, int | None, float | None]


class ProviderActor:
    """Runs in the Ray actor: the provider, and its errors as plain values (they cross processes)."""

    def __init__(self, provider: ChatProvider) -> None:
        self.provider = provider

    def complete(self, request: ChatRequest) -> ChatResponse | ErrorReply:
        try:
            return self.provider.complete(request)
        except ProviderError as exc:
            return (str(exc), exc.retryable, exc.status, exc.retry_after_s)


class RayProvider:
    """A :class:`ChatProvider` whose ``complete`` runs in ``actor``; errors come back as ProviderError."""

    def __init__(self, ray: ModuleType, inner: ChatProvider, actor: object) -> None:
        self.name, self.available = inner.name, inner.available
        self._ray, self._actor = ray, actor

    def complete(self, request: ChatRequest) -> ChatResponse:
        reply = self._ray.get(self._actor.complete.remote(request))  # type: ignore[attr-defined]
        if isinstance(reply, ChatResponse):
            return reply
        message, retryable, status, retry_after = reply
        raise ProviderError(message, retryable=retryable, status=status, retry_after_s=retry_after)

    def close(self) -> None:
        self._ray.kill(self._actor)


@contextmanager
def remote_llm_calls(ray: ModuleType, client: LLMClient | None, concurrency: int, progress: Progress) -> Iterator[None]:
    """During the block, ``client``'s provider calls run in one Ray actor taking ``concurrency`` at once.

    A provider that cannot be pickled stays in this process (noted): the run is then the same, only
    the requests leave from the driver."""
    if client is None or not client.available or client.estimating:
        yield
        return
    runner = client.runner
    inner = runner.provider
    try:
        ray.cloudpickle.dumps(inner)
    except Exception as exc:
        progress.note(f"indexing engine ray: LLM requests leave from the driver ({inner.name} cannot be sent: {exc})")
        yield
        return
    actor = ray.remote(num_cpus=0, max_concurrency=max(1, concurrency))(ProviderActor).remote(inner)
    remote = RayProvider(ray, inner, actor)
    runner.provider = remote
    try:
        yield
    finally:
        runner.provider = inner
        remote.close()
