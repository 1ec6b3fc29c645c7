"""Output schemas of the community prompts, registered by short name in ``KINDS["prompt_schema"]``
(``community_report``, ``global_map``) so exported prompt files stay valid when modules move.

Bounds are generous on purpose: a model that writes six findings instead of five, or rates 10.5, still
produces a usable report after clamping, rather than a re-ask that costs a second call.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, JsonValue, field_validator


def _untitled(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _untitled(v) for k, v in node.items() if k != "title" or not isinstance(v, str)}
    if isinstance(node, list):
        return [_untitled(v) for v in node]
    return node


class CompactModel(BaseModel):
    """A model whose JSON schema leaves out pydantic's generated titles: the schema is sent with every
    report and map call, and the titles only repeat the field names (about 40 tokens a call)."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, JsonValue]:
        schema: dict[str, JsonValue] = _untitled(super().model_json_schema(*args, **kwargs))
        return schema


class FindingReply(CompactModel):
    """One key finding with the labels (E3, R7, C2) of the items it rests on."""

    summary: str = Field(min_length=1)
    explanation: str = ""
    refs: list[str] = Field(default_factory=list)


class CommunityReportReply(CompactModel):
    """A community report as the model writes it."""

    title: str = Field(min_length=1)
    summary: str = Field(min_length=1)
    findings: list[FindingReply] = Field(default_factory=list)
    rating: float = 0.0

    @field_validator("rating")
    @classmethod
    def _clamp(cls, value: float) -> float:
        return min(10.0, max(0.0, value))


class MapPoint(CompactModel):
    """One point a map call found relevant to the question, rated 0–100, with the report labels."""

    point: str = Field(min_length=1)
    score: int = 0
    reports: list[str] = Field(default_factory=list)

    @field_validator("score")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return min(100, max(0, value))


class MapReply(CompactModel):
    """What one map call returns: the relevant points (possibly none)."""

    points: list[MapPoint] = Field(default_factory=list)
