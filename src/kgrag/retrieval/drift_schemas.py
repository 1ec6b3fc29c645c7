"""Output schema of the DRIFT primer and follow-up prompts (``drift_step``, registered in
``KINDS["prompt_schema"]``): an intermediate answer plus rated follow-up questions.

Bounds are lenient on purpose: a score of 120 or a sixth follow-up is clamped or cut by the caller rather
than re-asked, because a re-ask would spend prompt tokens the query's budget does not have.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator


class FollowUp(BaseModel):
    """A question whose answer would improve the current answer, rated 0–100 by how much."""

    question: str = Field(min_length=1)
    score: int = 0

    @field_validator("score")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return min(100, max(0, value))


class DriftReply(BaseModel):
    """What a primer or follow-up call returns."""

    answer: str = ""
    follow_ups: list[FollowUp] = Field(default_factory=list)
