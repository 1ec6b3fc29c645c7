"""Output schemas of the query-side prompts, registered by short name in ``KINDS["prompt_schema"]``.

Each prompt file names its schema; the LLM client validates replies against it (with one repair re-ask),
so a step receives a typed value or a clear error and falls back to its LLM-free path.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator


class QueryRewrites(BaseModel):
    """Query expansion: alternative phrasings of the question."""

    rewrites: list[str] = Field(default_factory=list, max_length=8)


class HypotheticalPassage(BaseModel):
    """HyDE: a passage that would answer the question, written as a document would say it."""

    passage: str


class ExpansionAndPassage(BaseModel):
    """The single-call combination of query expansion and HyDE."""

    rewrites: list[str] = Field(default_factory=list, max_length=8)
    passage: str = ""


class QueryKeywords(BaseModel):
    """LightRAG keywords: low-level (specific entities, terms) and high-level (themes, relations)."""

    low_level: list[str] = Field(default_factory=list)
    high_level: list[str] = Field(default_factory=list)


class StandaloneQuestion(BaseModel):
    """A follow-up question of a conversation rewritten to stand on its own."""

    question: str = Field(min_length=1)


class RerankRanking(BaseModel):
    """Listwise reranking: candidate numbers, most relevant first."""

    ranking: list[int] = Field(default_factory=list)


class RouteChoice(BaseModel):
    """The router's decision and a one-sentence reason."""

    route: Literal["local", "multi-hop", "global"]
    reason: str = ""


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
