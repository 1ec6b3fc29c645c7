"""Offline token counting for prompts, used when an API sends no usage block, for budgets and estimates.

Chat formats add a few tokens per message for role markers; :data:`MESSAGE_OVERHEAD_TOKENS` is the
OpenAI figure and a fair upper bound elsewhere. Counts are estimates for non-OpenAI tokenizers, which is
why the ledger records whether a count came from the API or from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from kgrag.core.llm_types import Message

MESSAGE_OVERHEAD_TOKENS = 4
REPLY_PRIMING_TOKENS = 3


class TextTokenCounter(Protocol):
    """Anything that counts tokens of a string (``kgrag.documents.tokens.TokenCounter`` fits)."""

    def count(self, text: str) -> int: ...


def default_token_counter() -> TextTokenCounter:
    """The cl100k_base counter, loaded offline; imported lazily so an LLM-free run never pays for it."""
    from kgrag.documents.tokens import TokenCounter

    return TokenCounter.for_encoding("cl100k_base")


def count_message_tokens(counter: TextTokenCounter, messages: Iterable[Message]) -> int:
    """Prompt tokens of a chat request: content plus the per-message and reply-priming overhead."""
    total = REPLY_PRIMING_TOKENS
    for message in messages:
        total += counter.count(message["content"]) + MESSAGE_OVERHEAD_TOKENS
    return total
