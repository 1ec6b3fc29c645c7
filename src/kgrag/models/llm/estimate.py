"""Estimate mode: run a pipeline without calling the LLM and count what it would have cost.

The wrapper answers every request with an empty reply, counts the prompt tokens offline and assumes a
fixed completion size. The client treats its replies as "not sent": it still consults the cache (a cached
call would be free in the real run too) but never caches, retries, re-asks or charges the budget.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from kgrag.core.llm_types import ChatRequest, ChatResponse, Prices
from kgrag.models.llm.base import ChatProvider
from kgrag.models.llm.tokens import TextTokenCounter, count_message_tokens

ESTIMATE_FINISH_REASON = "estimate"


@dataclass(frozen=True)
class Estimate:
    """Calls, tokens and money a run would spend on uncached LLM calls."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float

    def line(self) -> str:
        return (
            f"{self.calls} LLM calls, ~{self.prompt_tokens} prompt + ~{self.completion_tokens} completion "
            f"tokens, ~${self.cost_usd:.4f}"
        )


class EstimatingProvider:
    """Wraps the configured provider without calling it; keeps its name so cache keys match a real run."""

    available = True
    estimating = True

    def __init__(self, inner: ChatProvider, counter: TextTokenCounter, completion_tokens: int) -> None:
        self.name = inner.name
        self._inner = inner
        self._counter = counter
        self._completion_tokens = completion_tokens
        self._lock = threading.Lock()
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def complete(self, request: ChatRequest) -> ChatResponse:
        prompt = count_message_tokens(self._counter, request.messages)
        completion = min(self._completion_tokens, request.max_tokens or self._completion_tokens)
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion
        return ChatResponse("", ESTIMATE_FINISH_REASON, prompt, completion)

    def report(self, prices: Prices) -> Estimate:
        with self._lock:
            return Estimate(
                self.calls,
                self.prompt_tokens,
                self.completion_tokens,
                prices.cost(self.prompt_tokens, self.completion_tokens),
            )

    def close(self) -> None:
        self._inner.close()
