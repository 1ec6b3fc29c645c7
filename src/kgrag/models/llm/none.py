"""The ``none`` provider: a valid configuration in which no LLM exists.

Stages check ``client.available`` and take their LLM-free path, noting :func:`llm_free_note` in their
trace so a reader knows why, e.g., an answer is extractive. Calling it anyway is a bug in the stage and
raises a clear error instead of silently returning nothing.
"""

from __future__ import annotations

from kgrag.core.errors import ModelError
from kgrag.core.llm_types import ChatRequest, ChatResponse


def llm_free_note(stage: str) -> str:
    """The trace note a stage records when it skipped the LLM because none is configured."""
    return f"{stage}: llm.provider = none, used the LLM-free path"


class NoneProvider:
    """Reports ``available = False``; :meth:`complete` always raises."""

    name = "none"
    available = False

    def complete(self, request: ChatRequest) -> ChatResponse:
        raise ModelError(
            "no LLM is configured (llm.provider = none) but a stage tried to call one; set llm.provider "
            "to 'openai' with llm.providers.openai.base_url and llm.model, or use the stage's LLM-free mode"
        )

    def close(self) -> None:
        return None
