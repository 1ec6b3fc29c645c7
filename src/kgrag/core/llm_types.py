"""Plain values that cross the LLM layer: messages, requests, responses, results and prices.

They are dataclasses rather than SDK objects so that the cache, the ledger, the scripted provider and
the replay files all speak one small vocabulary that no vendor SDK version can change under us.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Literal, TypedDict, TypeVar

if TYPE_CHECKING:
    from pydantic import JsonValue

T = TypeVar("T")

Role = Literal["system", "user", "assistant"]
UsageSource = Literal["api", "counted", "distrusted", "estimated", "cache", "batch", "loop"]
StreamSink = Callable[[str], None]
"""Receives a streamed reply piece by piece (text deltas, in order); raising
:class:`~kgrag.core.errors.StreamCancelled` stops the request."""


class Message(TypedDict):
    """One chat message in the OpenAI wire shape, so it can be sent and cached without conversion."""

    role: Role
    content: str


def wire_messages(messages: Iterable[Message]) -> list[JsonValue]:
    """``messages`` as the JSON a request body carries."""
    return [{"role": m["role"], "content": m["content"]} for m in messages]


@dataclass(frozen=True)
class PromptRef:
    """Which prompt file (and which version of it) produced a request; its version is in the cache key."""

    name: str
    version: str


@dataclass(frozen=True)
class ChatRequest:
    """Everything that determines a response; two equal requests may share one cached reply."""

    messages: tuple[Message, ...]
    model: str
    params: dict[str, JsonValue] = field(default_factory=dict)
    """The request's wire parameters (``temperature``, ``max_tokens``, ``response_format``…), as sent."""
    prompt: PromptRef | None = None

    @property
    def max_tokens(self) -> int | None:
        value = self.params.get("max_tokens")
        return int(value) if isinstance(value, int | float | str) else None

    def cache_key(self, provider: str) -> str:
        """SHA-256 of the canonical JSON of provider, model, messages, parameters and prompt version."""
        payload = {
            "provider": provider,
            "model": self.model,
            "messages": [dict(m) for m in self.messages],
            "params": self.params,
            "prompt": [self.prompt.name, self.prompt.version] if self.prompt else None,
        }
        canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ChatResponse:
    """What a provider returned for one attempt. Token counts are None when the API sent no usage."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class Usage:
    """Tokens and cost of one logical call (all its attempts), with where the counts came from."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    source: UsageSource = "api"
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    attempts: int = 0
    cached: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class ChatResult:
    """The outcome of :meth:`LLMClient.chat`: the reply text plus its usage; ``estimated`` means not sent."""

    text: str
    usage: Usage
    finish_reason: str | None = None
    cache_key: str = ""
    estimated: bool = False


@dataclass(frozen=True)
class StructuredResult(Generic[T]):
    """A validated value, or ``value is None`` with ``error`` saying why this one item failed."""

    value: T | None
    error: str | None
    usage: Usage
    raw_text: str = ""
    repaired: bool = False
    reasked: bool = False
    finish_reason: str | None = None  # the accepted reply's (``"loop"``: stopped in a repetition loop)

    @property
    def ok(self) -> bool:
        return self.value is not None and self.error is None


@dataclass(frozen=True)
class Prices:
    """USD per one million tokens; zero means free (local servers)."""

    prompt_per_1m: float = 0.0
    completion_per_1m: float = 0.0
    batch_share: float = 0.5  # what a call answered through the Batch API costs, as a share of these prices

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.prompt_per_1m + completion_tokens * self.completion_per_1m) / 1_000_000

    def batch_cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """The cost of a call answered through the Batch API."""
        return self.cost(prompt_tokens, completion_tokens) * self.batch_share
