"""A reply caught in a repetition loop: stop reading it, and keep what it said before the loop.

A small model asked for a JSON list of items can fall into a loop: it emits again, verbatim, items it
already emitted, until ``max_tokens`` cuts it off. Such a reply is all cost: it is rejected as cut, then
asked again or split and asked smaller, and each of those calls is paid too. A legitimate reply never
holds one identical item :data:`REPEATS` times (two items may share a description, never every field),
so the third copy of an item is the sign of a loop.

:class:`LoopGuard` watches a reply's text as it arrives: it follows the JSON structure (strings and
escapes included) and, at the third copy of an object that is an element of a list, raises
:class:`ReplyLooped` with the reply up to the end of the last complete item before that copy, its open
brackets closed, and the tokens read so far (counted here: a stopped reply brings no usage block). The
reader leaving its stream closes the connection, which stops the server generating. The call then
comes back with ``finish_reason`` :data:`LOOP_FINISH`; :func:`drop_repeats` removes the copies when it is
parsed. Only the callers that ask for it (extraction) are guarded; other replies are read as before.
Guarded calls are streamed to local servers the probe named (``streams_guarded`` of the HTTP provider);
from other providers a whole reply cut at ``max_tokens`` that loops is cut the same way once read
(:func:`stop_at_loop`): its generation is paid, its re-ask and smaller retries are not.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgrag.core.llm_types import ChatResponse, StreamSink
from kgrag.models.llm.reasoning import ThinkingFilter
from kgrag.models.llm.reply_ceiling import ReplyPastCeiling

LOOP_FINISH = "loop"  # the finish reason of a reply whose reading stopped at a repetition loop
REPEATS = 3  # the copy of one item that marks a loop
_CLOSE = {"{": "}", "[": "]"}


class ReplyLooped(Exception):
    """Raised by :meth:`LoopGuard.feed` at a loop; carries the reply before the loop and the tokens read."""

    def __init__(self, text: str, tokens: int) -> None:
        super().__init__(f"the reply repeats itself after {tokens} tokens")
        self.text = text
        self.tokens = tokens


@dataclass
class LoopGuard:
    """Follows one reply's JSON as its text arrives; ``limit``: the reply's ceiling in tokens, if any
    (:class:`~kgrag.models.llm.reply_ceiling.ReplyCeiling`'s), past which :meth:`feed` raises
    :class:`ReplyPastCeiling`."""

    count: Callable[[str], int]
    limit: int | None = None
    _chars: list[str] = field(default_factory=list)  # the reply so far, a character each: appended, never copied
    _string: bool = False
    _escape: bool = False
    _open: list[tuple[str, int]] = field(default_factory=list)
    _seen: Counter[str] = field(default_factory=Counter)
    _kept: tuple[int, str] = (0, "")  # where the last complete item ends, and the closers of what is open there
    _read: int = 0
    _pieces: list[str] = field(default_factory=list)  # the reply as read, a thinking block included
    _answer: ThinkingFilter = field(default_factory=ThinkingFilter)

    def feed(self, delta: str) -> None:
        """Take the next piece of the reply; raise :class:`ReplyLooped` at a loop. The JSON is followed in
        the answer only: a reasoning model's thinking before it is read, counted and not followed."""
        self._pieces.append(delta)
        self._read += self.count(delta)
        if self.limit is not None and self._read > self.limit:
            raise ReplyPastCeiling(self._read)
        visible = self._answer.feed(delta)
        start = len(self._chars)
        self._chars.extend(visible)
        for pos, char in enumerate(visible, start):
            self._step(char, pos)

    def watching(self, sink: StreamSink | None) -> StreamSink:
        """A stream sink that feeds this guard, then ``sink`` (when there is one)."""

        def watched(delta: str) -> None:
            self.feed(delta)
            if sink is not None:
                sink(delta)

        return watched

    def _step(self, char: str, pos: int) -> None:
        if self._string:
            if self._escape:
                self._escape = False
            elif char == "\\":
                self._escape = True
            elif char == '"':
                self._string = False
            return
        if char == '"':
            self._string = True
        elif char in _CLOSE:
            self._open.append((char, pos))
        elif char in "}]" and self._open:
            opener, start = self._open.pop()
            if char == "}" and opener == "{" and self._open and self._open[-1][0] == "[":
                self._item("".join(self._chars[start : pos + 1]), pos + 1)

    def _item(self, raw: str, end: int) -> None:
        key = _canonical(raw)
        self._seen[key] += 1
        if self._seen[key] >= REPEATS:
            kept_end, closers = self._kept
            raise ReplyLooped("".join(self._chars[:kept_end]) + closers, self.count("".join(self._pieces)))
        self._kept = (end, "".join(_CLOSE[opener] for opener, _ in reversed(self._open)))


def _canonical(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw), sort_keys=True, ensure_ascii=False)
    except ValueError:
        return " ".join(raw.split())


def stop_at_loop(response: ChatResponse, count: Callable[[str], int]) -> ChatResponse:
    """A whole reply cut at ``max_tokens`` that loops, as the guard would have stopped it (its usage kept:
    it was read whole); any other reply unchanged."""
    if response.finish_reason != "length":
        return response
    try:
        LoopGuard(count).feed(response.text)
    except ReplyLooped as looped:
        return ChatResponse(looped.text, LOOP_FINISH, response.prompt_tokens, response.completion_tokens)
    return response


def drop_repeats(value: Any) -> Any:
    """``value`` with the later copies of identical items removed from its lists (a looped reply's)."""
    if isinstance(value, dict):
        return {key: drop_repeats(item) for key, item in value.items()}
    if not isinstance(value, list):
        return value
    seen: set[str] = set()
    kept = []
    for item in value:
        key = json.dumps(item, sort_keys=True, ensure_ascii=False)
        if key not in seen:
            seen.add(key)
            kept.append(drop_repeats(item))
    return kept
