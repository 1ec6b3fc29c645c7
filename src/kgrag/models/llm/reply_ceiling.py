"""A reply's ceiling: how many tokens the client will read of one reply before it stops and hangs up.

A server that ignores ``max_tokens`` can send a reply of any length, and a budget that reserved
``max_tokens`` for it cannot hold. So the reply body is read as it arrives and its message content is
counted as it comes (from ``"content"`` on; a ``\\uXXXX`` escape counts as one character): past the
ceiling, with :data:`SLACK_SHARE` and :data:`SLACK_TOKENS` of room for a tokenizer that counts a little
differently, reading stops and the connection is closed, which is what makes a generating server stop
(vLLM, llama.cpp and the project's test servers abort a request whose client has left). The call comes
back as an empty reply with ``finish_reason`` :data:`CEILING_FINISH` and the tokens read as its
completion, so it is charged, never cached, and never mistaken for an answer. Only a run with a token
budget (``llm.max_tokens_budget``) reads to a ceiling; without one there is nothing to hold, and a
long reply is read whole (within ``llm.timeout_s``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

CEILING_FINISH = "ceiling"  # the finish reason of a reply whose reading stopped at its ceiling
SLACK_SHARE = 0.1
SLACK_TOKENS = 32
_CONTENT = b'"content"'
_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}")


class ReplyPastCeiling(Exception):
    """Raised by the provider's reader when a reply passed its ceiling; carries the tokens read."""

    def __init__(self, tokens: int) -> None:
        super().__init__(f"reply past its ceiling after {tokens} tokens")
        self.tokens = tokens


@dataclass
class ReplyCeiling:
    """Counts the content of one reply body as its bytes arrive; :meth:`feed` raises past the ceiling."""

    tokens: int
    count: Callable[[str], int]
    _body: bytearray = field(default_factory=bytearray)
    _start: int | None = None
    _read: int = 0  # content tokens counted so far

    @property
    def limit(self) -> int:
        return self.tokens + int(self.tokens * SLACK_SHARE) + SLACK_TOKENS

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the body; raise :class:`ReplyPastCeiling` once the content is too long."""
        before = len(self._body)
        self._body += chunk
        if self._start is None:
            found = self._body.find(_CONTENT, max(0, before - len(_CONTENT)))
            if found < 0:
                return
            self._start = found + len(_CONTENT)
            before = self._start
        text = bytes(self._body[max(before, self._start) :]).decode("utf-8", "ignore")
        self._read += self.count(_ESCAPE.sub("u", text))
        if self._read > self.limit:
            raise ReplyPastCeiling(self._read)


def reply_ceiling_tokens(max_tokens: int, longest_overrun: int) -> int:
    """The ceiling of a request: its ``max_tokens``, or the longest reply this server sent past its
    ``max_tokens`` when that is longer (the server is expected to do it again)."""
    return max(max_tokens, longest_overrun)
