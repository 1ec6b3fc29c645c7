"""A reasoning model's thinking, left in the reply text, taken off before the reply is used.

Reasoning models (Qwen3 in thinking mode, DeepSeek-R1 and its distills, and others) write their thinking
before the answer. A server with a reasoning parser returns it apart (``reasoning_content``); one without
(llama.cpp, many self-hosted set-ups) leaves it in the reply as a ``<think>…</think>`` block, and some chat
templates open the block in the prompt, so the reply holds only its closing tag. Kept, the thinking would
be stored as an entity's description or shown as an answer, and a brace in it could be taken for the
JSON. So :func:`without_reasoning` drops a block that opens the reply (or, with no opening tag, everything
up to the first closing one). The tokens stay counted: the thinking was generated and is paid for.
"""

from __future__ import annotations

from dataclasses import replace

from kgrag.core.llm_types import ChatResponse

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
