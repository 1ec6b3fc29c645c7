"""One logical LLM call, end to end: cache, window check, budget, limits, retries, validation, ledger.

Kept apart from :class:`~kgrag.models.llm.client.LLMClient` so the client reads as its public API and
this module as the one place where the order of those steps is decided:

1. cache lookup (a hit that no longer validates is dropped and refetched);
2. fit to the context window (:mod:`~kgrag.models.llm.request_fit`) and budget reservation, both before
   anything is sent: the reservation is the prompt plus the reply's ceiling (:mod:`.reply_ceiling`), and a
   provider that reads replies as they arrive stops reading at that ceiling, so requests in flight can never
   bring back more than was reserved for them (plus the ceiling's small slack); without a budget replies are
   read whole;
3. attempts under the concurrency slot and rate buckets, retrying transient faults with backoff;
4. validation by the caller's parser; only an accepted, non-empty reply that was not cut off at
   ``max_tokens`` (``finish_reason == "length"``) is cached, so a half answer is never served again; a
   reply stopped in a repetition loop (:mod:`.reply_loop`, callers that ask for it) is accepted as its part
   before the loop and cached like any accepted reply (asked again, the model would loop again);
5. one ledger row, also for failures, with attempts and the reason for every retry, and the caller's
   :class:`~kgrag.core.llm_usage.CallLink` (the unit the call serves and why it was made) when it gave one.
   Its tokens are the
   larger of what the server reported and what was counted here, component by component; a server
   figure under half the local count is distrusted and the row says so (``usage_source =
   "distrusted"``), so the cost line shows what really went over the wire.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgrag.core.errors import ModelError, StreamCancelled
from kgrag.core.llm_types import ChatRequest, ChatResponse, Prices, StreamSink, Usage
from kgrag.core.llm_usage import CachedResponse, CallLink, CallRecord
from kgrag.models.llm.base import ChatProvider, LLMUnavailableError, ProviderError, ResponseCache, UsageLedger
from kgrag.models.llm.batch_collect import DEFERRED, BatchCollector, Deferred
from kgrag.models.llm.budget import BudgetExceededError, TokenBudget
from kgrag.models.llm.call_usage import both_sends, elapsed_ms, reply_usage
from kgrag.models.llm.ratelimit import CallLimits
from kgrag.models.llm.reasoning import answer_only, answer_sink
from kgrag.models.llm.reply_ceiling import CEILING_FINISH, ReplyCeiling, ReplyPastCeiling, reply_ceiling_tokens
from kgrag.models.llm.reply_loop import LOOP_FINISH, LoopGuard, ReplyLooped, stop_at_loop
from kgrag.models.llm.request_fit import cut_short, fit_request
from kgrag.models.llm.retry import RetryPolicy, announce_wait, unavailable_message
from kgrag.models.llm.structured import ReplyInvalid
from kgrag.models.llm.thinking_room import ThinkingRoom, sent_room
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


@dataclass(frozen=True)
class _Call:
    """What every send of one logical call shares."""

    stage: str
    attempts: _Attempts
    sink: StreamSink | None
    loop_guard: bool
    started: float
    link: CallLink | None


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
    longest_overrun: int = 0  # the longest complete reply this server sent past its max_tokens (counted here)
    read_cache: bool = True  # False: every call goes to the server (replies are still cached for later runs)
    collector: BatchCollector | None = None  # collect mode: a miss is deferred to a batch, not sent
    thinking: ThinkingRoom = field(default_factory=lambda: ThinkingRoom(0))  # a reasoning model's room

    @property
    def estimating(self) -> bool:
        return bool(getattr(self.provider, "estimating", False))

    def run(
        self,
        request: ChatRequest,
        stage: str,
        parse: Parser | None = None,
        sink: StreamSink | None = None,
        *,
        loop_guard: bool = False,
        link: CallLink | None = None,
    ) -> Outcome:
        """One logical call; raises only for run-stopping problems (budget, window, endpoint down).

        With ``sink`` the reply is streamed to it as it arrives (a cached reply, or one from a provider
        that cannot stream, in one piece); the cache and the ledger see the call exactly as an unstreamed
        one. A sink that raises :class:`StreamCancelled` stops the request: nothing is cached and the
        ledger row says the call was cancelled. With ``loop_guard`` a reply that falls into a repetition
        loop (:mod:`.reply_loop`) is stopped there and comes back as what it said before the loop. ``link``
        goes into the call's ledger row."""
        if not self.provider.available:
            self.provider.complete(request)  # raises the provider's own "no LLM configured" error
        key = request.cache_key(self.provider.name)
        started = time.perf_counter()
        hit = self._from_cache(key, request, stage, parse, started, sink, link)
        if hit is not None:
            return hit
        # fitted, not refused: a quoted reply is dropped, the reply room lowered (request_fit); a reasoning
        # model's learned thinking room is added where the window holds it beside the same messages
        base, base_tokens = fit_request(request, self.counter(), self.context_window)
        request, prompt_tokens = self._widened(base) or (base, base_tokens)
        if self.collector is not None:  # nothing is sent, cached or recorded: the batch will answer it
            self.collector.defer(Deferred(key, request, stage, parse))  # its batch row is written unlinked
            return Outcome(ChatResponse(""), Usage(), key, error=DEFERRED, estimated=True)
        if self.estimating:
            return self._estimate(request, key, stage, started, link)
        call = _Call(stage, _Attempts(), sink, loop_guard, started, link)
        try:
            response, usage, cut = self._fetch(request, prompt_tokens, call, room=sent_room(base, request))
        except BudgetExceededError:
            if request is base:
                raise
            request, prompt_tokens = base, base_tokens  # the budget holds the request, not its thinking room
            response, usage, cut = self._fetch(request, prompt_tokens, call)
        last = usage
        again = self._send_wider(base, request, usage, call) if cut else None
        if again is not None:
            (request, prompt_tokens), (response, last) = again
            usage = both_sends(usage, last)
        return self._accept(request, stage, key, response, usage, call.attempts, parse, link, sized=last)

    def _send_wider(
        self, base: ChatRequest, sent: ChatRequest, usage: Usage, call: _Call
    ) -> tuple[tuple[ChatRequest, int], tuple[ChatResponse, Usage]] | None:
        """A reasoning model spent ``sent``'s room thinking: ``base`` once more at once with the room it
        lacked (the request, its prompt tokens, the reply and its usage); None when the room cannot grow
        or the window or the budget cannot hold it (the cut reply stands)."""
        wider = self._widened(base)
        if wider is None or (wider[0].max_tokens or 0) <= (sent.max_tokens or 0):
            return None
        try:
            response, again, _ = self._fetch(*wider, call, prior=usage, room=sent_room(base, wider[0]))
        except BudgetExceededError:
            return None
        call.attempts.errors.append(
            f"cut at max_tokens {sent.max_tokens} before it answered ({usage.completion_tokens} tokens of "
            f"thinking): sent again with max_tokens {wider[0].max_tokens}"
        )
        return wider, (response, again)

    def _widened(self, fitted: ChatRequest) -> tuple[ChatRequest, int] | None:
        return self.thinking.widened(fitted, lambda wide: fit_request(wide, self.counter(), self.context_window))

    def _fetch(
        self, request: ChatRequest, prompt_tokens: int, call: _Call, *, prior: Usage | None = None, room: int = 0
    ) -> tuple[ChatResponse, Usage, bool]:
        """Send ``request`` under one budget reservation: the reply without its thinking, its usage, and
        whether it was cut while the model was still thinking and the room has grown past the ``room`` it
        was sent with (:class:`ThinkingRoom`). ``prior``: what an earlier send of the same call billed,
        recorded with a failure."""
        attempts, started = call.attempts, call.started
        max_tokens = request.max_tokens or 0
        ceiling = reply_ceiling_tokens(max_tokens, self.longest_overrun)
        reserved = self.budget.reserve(prompt_tokens + ceiling)
        spent = 0
        shown = answer_sink(call.sink) if call.sink is not None else None  # a reasoning model's thinking is hidden
        try:
            guarded = self._guarded_stream(ceiling) if call.loop_guard else None
            raw = self._send(request, prompt_tokens + max_tokens, attempts, ceiling, shown, guarded)
            if call.loop_guard and guarded is None:  # read whole: a reply that looped is cut at the loop now
                raw = stop_at_loop(raw, self.counter().count)
            # the budget and the ledger trust no server: each is charged the larger of the reported and the
            # counted size, so under-reported usage or a reply past max_tokens still counts in full
            counted_reply = self.counter().count(raw.text)
            usage = reply_usage(raw, prompt_tokens, counted_reply, self.prices, started, attempts.count)
            response = answer_only(raw)  # a reasoning model's thinking is paid for, then dropped
            if response.finish_reason != CEILING_FINISH and usage.completion_tokens > max_tokens:
                self.longest_overrun = max(self.longest_overrun, usage.completion_tokens)
            spent = usage.total_tokens
        except (ModelError, StreamCancelled) as exc:  # a cancelled stream: its message says so
            failed = Usage(0, 0, "counted", 0.0, elapsed_ms(started), attempts.count)  # failed attempts bill nothing
            failed = both_sends(prior, failed) if prior is not None else failed  # an earlier send of this call did
            self._record(request, call.stage, failed, attempts.errors, error=str(exc), link=call.link)
            raise
        finally:
            self.budget.settle(reserved, spent)
        thinking = counted_reply - self.counter().count(response.text) if response is not raw else 0
        return response, usage, self.thinking.learn(raw, response, usage.completion_tokens, thinking, room)

    def _accept(
        self,
        request: ChatRequest,
        stage: str,
        key: str,
        response: ChatResponse,
        usage: Usage,
        attempts: _Attempts,
        parse: Parser | None,
        link: CallLink | None = None,
        *,
        sized: Usage | None = None,
    ) -> Outcome:
        """Validate a fetched reply, cache it when it is whole and accepted, and write its ledger row.
        ``sized``: the usage of the send that brought ``response`` back, when ``usage`` bills more than one."""
        max_tokens = request.max_tokens or 0
        sized = sized or usage
        outcome = Outcome(response, usage, key)
        if response.finish_reason == CEILING_FINISH:
            outcome.error = (
                f"the reply passed its ceiling (max_tokens {max_tokens}; {sized.completion_tokens} "
                "tokens read): the server ignores max_tokens, so reading stopped there to hold "
                "llm.max_tokens_budget; raise llm.max_output_tokens if its replies are meant to be this long"
            )
        elif parse is not None:
            try:
                outcome.value, outcome.repaired = parse(response.text, response.finish_reason)
            except ReplyInvalid as exc:
                outcome.error = cut_short(str(exc), sized, max_tokens, self.context_window)
        if outcome.error is None and response.text and response.finish_reason != "length":
            self.store(key, request, response, usage)  # a reply cut at max_tokens is never cached
        self._record(request, stage, usage, attempts.errors, error=outcome.error, link=link)
        return outcome

    def accept_batch_reply(self, key: str, request: ChatRequest, stage: str, response: ChatResponse) -> Usage:
        """Cache a reply a batch returned (already checked by the caller) and write its ledger row, marked
        ``batch`` so it is priced at the batch share."""
        prompt = max(response.prompt_tokens or 0, count_message_tokens(self.counter(), request.messages))
        completion = max(response.completion_tokens or 0, self.counter().count(response.text))
        usage = Usage(prompt, completion, "batch", self.prices.batch_cost(prompt, completion), 0.0, 1)
        self.store(key, request, answer_only(response), usage)
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
        link: CallLink | None = None,
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
        latency = elapsed_ms(started)
        outcome.usage = Usage(cached.prompt_tokens, cached.completion_tokens, "cache", 0.0, latency, 0, True)
        self._record(request, stage, outcome.usage, [], link=link)
        if sink is not None and cached.text:
            sink(cached.text)
        return outcome

    def _estimate(self, request: ChatRequest, key: str, stage: str, started: float, link: CallLink | None) -> Outcome:
        response = self.provider.complete(request)
        prompt, completion = response.prompt_tokens or 0, response.completion_tokens or 0
        usage = Usage(prompt, completion, "estimated", self.prices.cost(prompt, completion), elapsed_ms(started), 0)
        self._record(request, stage, usage, [], estimated=True, link=link)
        return Outcome(response, usage, key, error="estimate mode: no call was made", estimated=True)

    def _guarded_stream(self, ceiling: int) -> Callable[[ChatRequest, StreamSink | None], ChatResponse] | None:
        """A stream that reads the reply through a :class:`LoopGuard` (also holding its ceiling when there is a
        budget), so reading stops at a loop and the connection closes; None when the provider does not
        stream loop-guarded calls (``streams_guarded``)."""
        if not getattr(self.provider, "streams_guarded", False):
            return None
        limit = ReplyCeiling(ceiling, self.counter().count).limit if self.budget.max_tokens is not None else None
        stream: Callable[[ChatRequest, StreamSink], ChatResponse] = self.provider.stream  # type: ignore[attr-defined]

        def streamed(chat: ChatRequest, shown: StreamSink | None) -> ChatResponse:
            guard = LoopGuard(self.counter().count, limit)  # one per attempt
            try:
                return stream(chat, guard.watching(shown))
            except ReplyLooped as looped:
                return ChatResponse(looped.text, LOOP_FINISH, None, looped.tokens)
            except ReplyPastCeiling as cut:
                return ChatResponse("", CEILING_FINISH, None, cut.tokens)

        return streamed

    def _send(
        self,
        request: ChatRequest,
        rate_tokens: int,
        attempts: _Attempts,
        ceiling: int,
        sink: StreamSink | None = None,
        guarded: Callable[[ChatRequest, StreamSink | None], ChatResponse] | None = None,
    ) -> ChatResponse:
        stream = guarded or (getattr(self.provider, "stream", None) if sink is not None else None)
        # with a budget to hold, a provider that can stop reading a reply stops at its ceiling
        within = getattr(self.provider, "complete_within", None) if self.budget.max_tokens is not None else None
        last: ProviderError | None = None
        for retry_index in range(self.retry.max_retries + 1):
            attempts.count += 1
            try:
                with self.limits.slot(rate_tokens):
                    if stream is not None:
                        return stream(request, sink)
                    if within is None:
                        response = self.provider.complete(request)
                    else:
                        response = within(request, ReplyCeiling(ceiling, self.counter().count))
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
        raise LLMUnavailableError(unavailable_message(attempts.count, last)) from last

    def _record(
        self,
        request: ChatRequest,
        stage: str,
        usage: Usage,
        errors: list[str],
        *,
        error: str | None = None,
        estimated: bool = False,
        link: CallLink | None = None,
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
                unit_key=link.key if link else None,
                call_role=link.role if link else None,
            )
        )
