"""Output schemas of the community prompts, registered by short name in ``KINDS["prompt_schema"]``
(``community_report``, ``global_map``) so exported prompt files stay valid when modules move.

Bounds are generous on purpose: a model that writes six findings instead of five, or rates 10.5, still
produces a usable report after clamping, rather than a re-ask that costs a second call.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator


class FindingReply(BaseModel):
    """One key finding with the labels (E3, R7, C2) of the items it rests on."""

    summary: str = Field(min_length=1)
    explanation: str = ""
    refs: list[str] = Field(default_factory=list)


class CommunityReportReply(BaseModel):
    """A community report as the model writes it."""

    title: str = Field(min_length=1)
    summary: str = Field(min_length=1)
    findings: list[FindingReply] = Field(default_factory=list)
    rating: float = Field(description="Importance of the community, 0 (trivial) to 10 (central).")

    @field_validator("rating")
    @classmethod
    def _clamp(cls, value: float) -> float:
        return min(10.0, max(0.0, value))


class MapPoint(BaseModel):
    """One point a map call found relevant to the question, rated 0–100, with the report labels."""

    point: str = Field(min_length=1)
    score: int = 0
    reports: list[str] = Field(default_factory=list)

    @field_validator("score")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return min(100, max(0, value))


class MapReply(BaseModel):
    """What one map call returns: the relevant points (possibly none)."""

    points: list[MapPoint] = Field(default_factory=list)
