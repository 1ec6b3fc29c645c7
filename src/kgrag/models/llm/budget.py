"""Token budget and context-window checks: fail before sending, never after paying.

The budget reserves each call's worst case (prompt tokens + the reply's ceiling: ``max_tokens``, or the
longest reply this server sent past it) before it is sent and settles to the real usage afterwards, so
concurrent workers cannot jointly overshoot the cap: reservations in flight never exceed what is left,
and a reply is not read past its ceiling (:mod:`kgrag.models.llm.reply_ceiling`). Prompt sizes are
counted offline with cl100k_base; a server with another tokenizer may report a few percent more, so a
cap meant as a hard ceiling needs that much headroom.
"""

from __future__ import annotations

import threading

from kgrag.core.errors import BudgetExceededError, ModelError


class TokenBudget:
    """A cap on prompt + completion tokens for one run; ``max_tokens=None`` means unlimited."""

    def __init__(self, max_tokens: int | None = None) -> None:
        self.max_tokens = max_tokens
        self._used = 0
        self._reserved = 0
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        with self._lock:
            return self._used

    def reserve(self, tokens: int) -> int:
        """Reserve the next call's worst case or raise :class:`BudgetExceededError`; returns the amount."""
        with self._lock:
            if self.max_tokens is not None and self._used + self._reserved + tokens > self.max_tokens:
                raise BudgetExceededError(
                    f"LLM token budget: {self._used} tokens used and {self._reserved} in flight; the next "
                    f"call may need {tokens} more, which would exceed llm.max_tokens_budget = "
                    f"{self.max_tokens}. Raise the budget and rerun: finished calls are cached, so the run "
                    "resumes where it stopped."
                )
            self._reserved += tokens
            return tokens

    def settle(self, reserved: int, actual: int) -> None:
        """Replace a reservation by the tokens the call really used (0 when it failed)."""
        with self._lock:
            self._reserved -= reserved
            self._used += actual


def check_context_window(
    configured_window: int | None,
    largest_prompt_tokens: int,
    max_output_tokens: int,
    settings: str = "generation.context_tokens or llm.max_output_tokens",
) -> None:
    """Raise :class:`ModelError` when the prompt plus the reply cannot fit in the model's context window;
    ``settings`` names what sets this request's size (an answer's by default), for the message.

    Servers rarely fail loudly here: Ollama, for one, silently drops the start of a prompt longer than its
    window, and it serves 2048 tokens unless told otherwise, so answers quietly lose their context.
    """
    if configured_window is None:
        return
    needed = largest_prompt_tokens + max_output_tokens
    if needed <= configured_window:
        return
    raise ModelError(
        f"a request needs {largest_prompt_tokens} prompt + {max_output_tokens} output = {needed} tokens but "
        f"llm.context_window is {configured_window}. Lower {settings}, "
        "or raise the server's window and then llm.context_window. Common trap: "
        "Ollama serves a 2048-token window (num_ctx) by default and silently truncates longer prompts; "
        "start it with OLLAMA_CONTEXT_LENGTH=8192 or build a model with `PARAMETER num_ctx 8192` in its "
        "Modelfile. llama.cpp server takes `--ctx-size`, vLLM `--max-model-len`."
    )
