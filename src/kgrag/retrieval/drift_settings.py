"""The knobs of the ``drift`` pipeline, in one model: its hard prompt-token budget, how deep and how wide
it follows up, and how much each step reads.

They are written under ``[retrieval.pipelines.drift.options]`` (the table plug-in pipelines use for their
own keys) and validated when the pipeline is built, so a wrong key or value is one line naming it.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgrag.core.errors import ConfigError


class DriftSettings(BaseModel):
    """DRIFT search: a primer over community reports, follow-up questions answered by local search, one
    reduce call; every call is counted against ``max_prompt_tokens`` before it is sent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_prompt_tokens: int = Field(
        12000,
        ge=100,
        description="Prompt tokens one query may spend over all its calls (primer, follow-ups, reduce); a call "
        "that would cross it is not sent.",
    )
    depth: int = Field(
        2, ge=0, le=5, description="Rounds of follow-up questions answered by local search (0: primer only)."
    )
    breadth: int = Field(3, ge=1, le=10, description="Follow-up questions answered per round, best rated first.")
    follow_ups: int = Field(4, ge=0, le=10, description="Follow-up questions kept from each reply.")
    reports: int = Field(5, ge=1, le=50, description="Community reports the primer reads (most similar first).")
    local_pipeline: str = Field(
        "graph-local", min_length=1, description="Pipeline that answers a follow-up question's local search."
    )
    local_k: int = Field(5, ge=1, le=50, description="Items each local search returns.")
    local_tokens: int = Field(800, ge=50, description="Most context tokens one follow-up prompt carries.")
    reply_tokens: int = Field(400, ge=50, description="Most completion tokens of a primer or follow-up reply.")
    partial_tokens: int = Field(
        200, ge=20, description="Most tokens of one intermediate answer handed to the reduce call."
    )
    answer_tokens: int = Field(500, ge=50, description="Most completion tokens of the final answer.")


def drift_settings(options: Mapping[str, object], where: str) -> DriftSettings:
    """``options`` validated as :class:`DriftSettings`; an unknown key or bad value is one
    :class:`ConfigError` naming ``where.<key>``."""
    try:
        return DriftSettings.model_validate(dict(options))
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "?"
        raise ConfigError(f"{where}.{key}: {error['msg']} (see docs/communities.md, DRIFT search)") from None
