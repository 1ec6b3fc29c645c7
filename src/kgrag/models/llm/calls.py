"""One logical LLM call, end to end: cache, window check, budget, limits, retries, validation, ledger.

Kept apart from :class:`~kgrag.models.llm.client.LLMClient` so the client reads as its public API and
this module as the one place where the order of those steps is decided:

1. cache lookup (a hit that no longer validates is dropped and refetched);
2. fit to the context window (:mod:`~kgrag.models.llm.request_fit`) and budget reservation, both before
   anything is sent;
3. attempts under the concurrency slot and rate buckets, retrying transient faults with backoff;
4. validation by the caller's parser; only an accepted, non-empty reply that was not cut off at
   ``max_tokens`` (``finish_reason == "length"``) is cached, so a half answer is never served again;
5. one ledger row, also for failures, with attempts and the reason for every retry.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgrag.core.errors import ModelError, StreamCancelled
from kgrag.core.llm_types import ChatRequest, ChatResponse, Prices, StreamSink, Usage, UsageSource
from kgrag.core.llm_usage import CachedResponse, CallRecord
from kgrag.models.llm.base import ChatProvider, LLMUnavailableError, ProviderError, ResponseCache, UsageLedger
from kgrag.models.llm.batch_collect import DEFERRED, BatchCollector, Deferred
from kgrag.models.llm.budget import TokenBudget
from kgrag.models.llm.ratelimit import CallLimits
from kgrag.models.llm.request_fit import cut_short, fit_request
from kgrag.models.llm.retry import RetryPolicy, announce_wait
from kgrag.models.llm.structured import ReplyInvalid
from kgrag.models.llm.tokens import TextTokenCounter, count_message_tokens

Parser = Callable[[str, str | None], tuple[Any, bool]]


@dataclass
class Outcome:
    """What :meth:`CallRunner.run` found: the reply, its usage, and the parsed value or the reason not."""

    response: ChatResponse
    usage: Usage
    key: str
    value: Any = None
    error: str | None = None
    repaired: bool = False
    estimated: bool = False


@dataclass
class _Attempts:
    count: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class CallRunner:
    """Runs calls for one client; every collaborator is injected so tests can swap any of them."""

    provider: ChatProvider
    cache: ResponseCache | None
    ledger: UsageLedger
    budget: TokenBudget
    limits: CallLimits
    retry: RetryPolicy
    prices: Prices
    context_window: int | None
    run_id: str
    counter: Callable[[], TextTokenCounter]
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)
    largest_reply: int = 0  # the longest reply seen, counted locally (a server may ignore max_tokens)
    read_cache: bool = True  # False: every call goes to the server (replies are still cached for later runs)
    collector: BatchCollector | None = None  # collect mode: a miss is deferred to a batch, not sent

    @property
    def estimating(self) -> bool:
        return bool(getattr(self.provider, "estimating", False))

    def run(
        self, request: ChatRequest, stage: str, parse: Parser | None = None, sink: StreamSink | None = None
    ) -> Outcome:
        """One logical call; raises only for run-stopping problems (budget, window, endpoint down).

        With ``sink`` the reply is streamed to it as it arrives (a cached reply, or one from a provider
        that cannot stream, in one piece); the cache and the ledger see the call exactly as an unstreamed
        one. A sink that raises :class:`StreamCancelled` stops the request: nothing is cached and the
        ledger row says the call was cancelled."""
        if not self.provider.available:
            self.provider.complete(request)  # raises the provider's own "no LLM configured" error
        key = request.cache_key(self.provider.name)
        started = time.perf_counter()
        hit = self._from_cache(key, request, stage, parse, started, sink)
        if hit is not None:
            return hit
        # fitted, not refused: a quoted reply is dropped, the reply room lowered (request_fit)
        request, prompt_tokens = fit_request(request, self.counter(), self.context_window)
        max_tokens = request.max_tokens or 0
        if self.collector is not None:  # nothing is sent, cached or recorded: the batch will answer it
            self.collector.defer(Deferred(key, request, stage, parse))
            return Outcome(ChatResponse(""), Usage(), key, error=DEFERRED, estimated=True)
        if self.estimating:
            return self._estimate(request, key, stage, started)
        # a server seen to reply past max_tokens is expected to do it again: reserve what it really sends
        reserved = self.budget.reserve(prompt_tokens + max(max_tokens, self.largest_reply))
        attempts = _Attempts()
        spent = 0
        try:
            response = self._send(request, prompt_tokens + max_tokens, attempts, sink)
            # the budget trusts no server: it is charged the larger of the reported and the counted size,
            # so under-reported usage or a reply past max_tokens still counts in full
            counted_reply = self.counter().count(response.text)
            usage = self._usage(response, prompt_tokens, counted_reply, started, attempts.count)
            self.largest_reply = max(self.largest_reply, counted_reply, usage.completion_tokens)
            spent = max(usage.total_tokens, prompt_tokens + counted_reply)
        except (ModelError, StreamCancelled) as exc:  # a cancelled stream: its message says so
            self._record(
                request,
                stage,
                Usage(0, 0, "counted", 0.0, _ms(started), attempts.count),  # failed attempts bill nothing
                attempts.errors,
                error=str(exc),
            )
            raise
        finally:
            self.budget.settle(reserved, spent)
        outcome = Outcome(response, usage, key)
        if parse is not None:
            try:
                outcome.value, outcome.repaired = parse(response.text, response.finish_reason)
            except ReplyInvalid as exc:
                outcome.error = cut_short(str(exc), usage, max_tokens, self.context_window)
        if outcome.error is None and response.text and response.finish_reason != "length":
            self.store(key, request, response, usage)  # a reply cut at max_tokens is never cached
        self._record(request, stage, usage, attempts.errors, error=outcome.error)
        return outcome

    def accept_batch_reply(self, key: str, request: ChatRequest, stage: str, response: ChatResponse) -> Usage:
        """Cache a reply a batch returned (already checked by the caller) and write its ledger row, marked
        ``batch`` so it is priced at the batch share."""
        prompt, completion = response.prompt_tokens, response.completion_tokens
        if prompt is None:
            prompt = count_message_tokens(self.counter(), request.messages)
        if completion is None:
            completion = self.counter().count(response.text)
        usage = Usage(prompt, completion, "batch", self.prices.batch_cost(prompt, completion), 0.0, 1)
        self.store(key, request, response, usage)
        self._record(request, stage, usage, [])
        return usage

    def store(self, key: str, request: ChatRequest, response: ChatResponse, usage: Usage) -> None:
        """Cache an accepted reply (no-op when caching is off)."""
        if self.cache is not None:
            cached = CachedResponse(response.text, response.finish_reason, usage.prompt_tokens, usage.completion_tokens)
            self.cache.put(key, request, cached)

    def _from_cache(
        self,
        key: str,
        request: ChatRequest,
        stage: str,
        parse: Parser | None,
        started: float,
        sink: StreamSink | None = None,
    ) -> Outcome | None:
        """The cached reply (handed to ``sink`` in one piece when streaming), or None."""
        if self.cache is None or not self.read_cache:
            return None
        cached = self.cache.get(key)
        if cached is None:
            return None
        response = ChatResponse(cached.text, cached.finish_reason, cached.prompt_tokens, cached.completion_tokens)
        outcome = Outcome(response, Usage(), key)
        if parse is not None:
            try:
                outcome.value, outcome.repaired = parse(cached.text, cached.finish_reason)
            except ReplyInvalid:
                self.cache.delete(key)  # stale: the schema changed without a prompt version bump
                return None
        outcome.usage = Usage(cached.prompt_tokens, cached.completion_tokens, "cache", 0.0, _ms(started), 0, True)
        self._record(request, stage, outcome.usage, [])
        if sink is not None and cached.text:
            sink(cached.text)
        return outcome

    def _estimate(self, request: ChatRequest, key: str, stage: str, started: float) -> Outcome:
        response = self.provider.complete(request)
        prompt, completion = response.prompt_tokens or 0, response.completion_tokens or 0
        usage = Usage(prompt, completion, "estimated", self.prices.cost(prompt, completion), _ms(started), 0)
        self._record(request, stage, usage, [], estimated=True)
        return Outcome(response, usage, key, error="estimate mode: no call was made", estimated=True)

    def _send(
        self, request: ChatRequest, rate_tokens: int, attempts: _Attempts, sink: StreamSink | None = None
    ) -> ChatResponse:
        stream = getattr(self.provider, "stream", None) if sink is not None else None
        last: ProviderError | None = None
        for retry_index in range(self.retry.max_retries + 1):
            attempts.count += 1
            try:
                with self.limits.slot(rate_tokens):
                    if stream is not None:
                        return stream(request, sink)
                    response = self.provider.complete(request)
                if sink is not None and response.text:
                    sink(response.text)
                return response
            except ProviderError as exc:
                if not exc.retryable:
                    raise
                attempts.errors.append(exc.short)
                last = exc
                if retry_index < self.retry.max_retries:
                    delay = self.retry.delay(retry_index, exc.retry_after_s, self.rng)
                    announce_wait(delay, exc.retry_after_s, exc.short)
                    self.sleep(delay)
        raise LLMUnavailableError(
            f"LLM call failed after {attempts.count} attempts (last error: {last}); the endpoint looks down "
            "or overloaded. Finished calls are cached, so rerunning resumes where this stopped; raise "
            "llm.max_retries or lower llm.max_concurrency if this repeats."
        ) from last

    def _usage(
        self, response: ChatResponse, counted_prompt: int, counted_reply: int, started: float, attempts: int
    ) -> Usage:
        """The reply's usage as the server reported it, the locally counted figure standing in for a missing one."""
        source: UsageSource = "api"
        prompt, completion = response.prompt_tokens, response.completion_tokens
        if prompt is None or completion is None:
            source = "counted"
            prompt = counted_prompt if prompt is None else prompt
            completion = counted_reply if completion is None else completion
        cost = self.prices.cost(prompt, completion)
        return Usage(prompt, completion, source, cost, _ms(started), attempts)

    def _record(
        self,
        request: ChatRequest,
        stage: str,
        usage: Usage,
        errors: list[str],
        *,
        error: str | None = None,
        estimated: bool = False,
    ) -> None:
        prompt = request.prompt
        self.ledger.record(
            CallRecord(
                run_id=self.run_id,
                stage=stage,
                provider=self.provider.name,
                model=request.model,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                usage_source=usage.source,
                latency_ms=usage.latency_ms,
                cache_hit=usage.cached,
                attempts=usage.attempts,
                prompt_name=prompt.name if prompt else None,
                prompt_version=prompt.version if prompt else None,
                estimated=estimated,
                attempt_errors=tuple(errors),
                error=error,
                created_at=time.time(),
            )
        )


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
