"""Room for a reasoning model's thinking on top of each request's ``max_tokens``.

A reasoning model spends completion tokens thinking before it answers, and the server counts them against
``max_tokens`` whether it leaves the thinking in the reply text (a ``<think>`` block, :mod:`.reasoning`) or
returns it apart. A call sized for its answer alone (a description summary of a hundred tokens, a map
call's points) then comes back cut at ``max_tokens`` before a word of the answer was written, and asking
again with the same limit is cut again: summaries fall back, reports fail, the work waits for the next run.

:class:`ThinkingRoom` learns how long this client's model thinks and adds that to every request's
``max_tokens``, up to ``llm.max_thinking_tokens``: from the thinking blocks its replies show (their
length, with a margin) and from replies cut before any answer (the room then grows to several times what
that reply spent). The call runner sends such a cut reply's request again once, at once, with the grown
room, and bills both attempts. A model that does not think leaves no block and does not come back with
nothing at the limit (a reply of whitespace alone, as a JSON-mode server that runs away in newlines
sends, is not taken for thinking), so its requests are not widened. ``max_tokens`` is a ceiling, not a
spend: a wider one costs tokens only when the model uses them, though budget reservations and
tokens-per-minute limits count it. The room never changes what a request carries: where the context
window cannot hold it beside the messages, it is left out.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.models.llm.request_fit import RequestTooLargeError

MARGIN = 1.25  # thinking seen whole: room for a longer run of it next time
CUT_GROWTH = 4  # a reply cut before it answered: the room grows to this many times what it spent
LENGTH_FINISH = "length"


@dataclass
class ThinkingRoom:
    """Tokens added to every request's ``max_tokens`` for the model's thinking, learned from its replies.

    ``limit`` is the most ever added (0: never add, never send again). Thread-safe: calls run on several
    threads and all of them read and grow the one figure."""

    limit: int
    tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def widen(self, request: ChatRequest) -> ChatRequest:
        """``request`` with the learned room added to its ``max_tokens`` (unchanged while none is learned or
        the request sets no ``max_tokens``)."""
        room = self.tokens
        if room <= 0 or request.max_tokens is None:
            return request
        return replace(request, params={**request.params, "max_tokens": request.max_tokens + room})

    def widened(
        self, fitted: ChatRequest, fit: Callable[[ChatRequest], tuple[ChatRequest, int]]
    ) -> tuple[ChatRequest, int] | None:
        """``fitted`` (a request fitted to the window) with the room added to its ``max_tokens`` and fitted
        again by ``fit`` (:func:`~kgrag.models.llm.request_fit.fit_request`): the request and its prompt
        tokens; None when there is no room to add, or when the window could hold it only by changing the
        messages (a quoted reply dropped): the room never changes what a request carries."""
        wide = self.widen(fitted)
        if wide is fitted:
            return None
        try:
            request, prompt_tokens = fit(wide)
        except RequestTooLargeError:
            return None
        return (request, prompt_tokens) if request.messages == fitted.messages else None

    def learn(self, raw: ChatResponse, answer: ChatResponse, spent: int, thinking: int, sent_room: int = 0) -> bool:
        """Learn from one reply: ``raw`` as it came, ``answer`` without its thinking, ``spent`` its completion
        tokens (as billed), ``thinking`` the tokens of the thinking its text showed (0 when none),
        ``sent_room`` the room its request was sent with. True when the reply was cut before it answered and
        the room is now larger than that, so the request is worth sending again.

        Cut before it answered means: stopped at ``max_tokens`` with no answer, after a thinking block
        (the text showed one) or with no text at all (a reasoning parser sent the thinking apart). A reply
        of whitespace alone is not thinking (a JSON-mode server that runs away in newlines): it teaches
        nothing. The room grows from what the cut request was sent with, not from the current figure, so
        replies cut together in one wave of concurrent calls do not compound it."""
        if self.limit <= 0:
            return False
        thought = raw.text != answer.text or not raw.text
        cut_before_answer = raw.finish_reason == LENGTH_FINISH and not answer.text.strip() and thought and spent > 0
        with self._lock:
            if cut_before_answer:
                self.tokens = min(self.limit, max(self.tokens, spent * CUT_GROWTH))
            elif thinking > 0:
                self.tokens = min(self.limit, max(self.tokens, math.ceil(thinking * MARGIN)))
            return cut_before_answer and self.tokens > sent_room


def sent_room(base: ChatRequest, sent: ChatRequest) -> int:
    """The thinking room ``sent`` carries over ``base``, the same request without it."""
    return max(0, (sent.max_tokens or 0) - (base.max_tokens or 0))
