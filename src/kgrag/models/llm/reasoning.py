"""A reasoning model's thinking, left in the reply text, taken off before the reply is used.

Reasoning models (Qwen3 in thinking mode, DeepSeek-R1 and its distills, and others) write their thinking
before the answer. A server with a reasoning parser returns it apart (``reasoning_content``); one without
(llama.cpp, many self-hosted set-ups) leaves it in the reply as a ``<think>…</think>`` block, and some chat
templates open the block in the prompt, so the reply holds only its closing tag. Kept, the thinking would
be stored as an entity's description or shown as an answer, and a brace in it could be taken for the
JSON. So :func:`without_reasoning` drops a block that opens the reply (or, with no opening tag, everything
up to the first closing one). The tokens stay counted: the thinking was generated and is paid for.
A reply read as a stream is filtered as it arrives (:class:`ThinkingFilter`), for what is shown and for
the loop guard; a stream cannot wait for a closing tag that may never come, so there only a block that
opens the reply is recognised.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kgrag.core.llm_types import ChatResponse, StreamSink

REASONING_TAGS = ("think", "thinking", "reasoning")


def without_reasoning(text: str) -> str:
    """``text`` without the thinking block it opens with; a reply stopped inside its thinking has no
    answer (empty); any other text is returned unchanged."""
    head = text.lstrip()
    for tag in REASONING_TAGS:
        opening, closing = f"<{tag}>", f"</{tag}>"
        end = text.find(closing)
        if end < 0:
            if head.startswith(opening):
                return ""  # cut before the thinking ended: no answer was written
            continue
        before = text[:end]
        if head.startswith(opening) or opening not in before:
            return text[end + len(closing) :].lstrip()
    return text


def answer_only(response: ChatResponse) -> ChatResponse:
    """``response`` with :func:`without_reasoning` applied to its text (the same object when unchanged)."""
    text = without_reasoning(response.text)
    return response if text == response.text else replace(response, text=text)


@dataclass
class ThinkingFilter:
    """Feeds on a reply's pieces as they arrive and gives back the part of each that is the answer: nothing
    while a thinking block that opens the reply lasts (or while the reply's first characters may still be
    its opening tag), then the rest with the whitespace after the block dropped."""

    _state: str = "start"  # "start" (undecided), "thinking", "answer"
    _held: str = ""
    _closing: str = ""
    _leading: bool = False  # True right after a thinking block: the whitespace that follows it is dropped

    def feed(self, delta: str) -> str:
        """The answer's part of ``delta`` (empty while thinking or undecided)."""
        if self._state == "answer":
            return self._shown(delta)
        self._held += delta
        if self._state == "start" and not self._opened():
            if self._state == "start":
                return ""  # the first characters may still be an opening tag
            held, self._held = self._held, ""
            return held
        end = self._held.find(self._closing)
        if end < 0:
            self._held = self._held[-(len(self._closing) - 1) :]  # a closing tag split over two pieces
            return ""
        self._state, rest, self._held = "answer", self._held[end + len(self._closing) :], ""
        self._leading = True
        return self._shown(rest)

    def _opened(self) -> bool:
        """Decide from the held start: True when a thinking block opens the reply (state "thinking"); False
        with the state still "start" while undecided, or set to "answer" when none does."""
        head = self._held.lstrip()
        for tag in REASONING_TAGS:
            opening = f"<{tag}>"
            if head.startswith(opening):
                self._state, self._closing, self._held = "thinking", f"</{tag}>", head[len(opening) :]
                return True
        if not any(f"<{tag}>".startswith(head) for tag in REASONING_TAGS):
            self._state = "answer"
        return False

    def _shown(self, text: str) -> str:
        if self._leading:
            text = text.lstrip()
            self._leading = not text
        return text


def answer_sink(sink: StreamSink) -> StreamSink:
    """``sink`` given only the answer of a streamed reply (:class:`ThinkingFilter`)."""
    answer = ThinkingFilter()

    def shown(delta: str) -> None:
        visible = answer.feed(delta)
        if visible:
            sink(visible)

    return shown
