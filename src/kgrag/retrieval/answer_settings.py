"""Settings of the built-in answer strategies that have knobs: ``[retrieval.answer.global]``.

The `global` pipeline plans its report batches for the `global` answer strategy's map calls, so both read
this one table (the budget a query may spend over all its map and reduce calls)."""

from __future__ import annotations

from pydantic import Field

from kgrag.config import KgragConfig
from kgrag.config.base import Section


class GlobalAnswerSettings(Section):
    """Map-reduce over community reports under one prompt budget (`global` search)."""

    max_prompt_tokens: int = Field(
        6000, ge=1000, description="Prompt tokens one query may spend over all its map and reduce calls."
    )
    batch_tokens: int = Field(1400, ge=300, description="Report tokens per map call (one batch of reports).")
    min_score: int = Field(
        20, ge=0, le=100, description="Map points rated below this (0–100) are dropped before reduce."
    )
    answer_tokens: int = Field(500, ge=50, description="Most tokens of the final answer.")


def global_answer_settings(config: KgragConfig) -> GlobalAnswerSettings:
    """The `global` answer strategy's settings (its table, else the defaults)."""
    return config.retrieval.entry_settings("answer", "global", GlobalAnswerSettings)
