"""Settings models of the built-in denoising strategies that have knobs: ``[denoise.blockers.kmeans]``,
``[denoise.matchers."ego+neighbour"]`` (and ``"ego+typed-neighbour"``), ``[denoise.groupers.greedy]``,
``[denoise.mergers.both]`` and ``[denoise.reflectors.llm]``.

What every strategy of a step shares (the merge target and threshold, the block cap, the ego text, the drop
score) stays in ``[denoise]``."""

from __future__ import annotations

from pydantic import Field

from kgrag.config.base import Section


class KmeansBlockerSettings(Section):
    """Semantic k-means blocking on entity vectors (deg-rag)."""

    k: int = Field(0, ge=0, description="Number of blocks; 0 = √(|E|/10) (deg-rag).")


class EgoMixSettings(Section):
    """A matcher that mixes the ego score with a neighbour score."""

    ego_weight: float = Field(0.7, ge=0.0, le=1.0, description="Weight of the ego score; the rest goes to the other.")


class GreedyGrouperSettings(Section):
    """Greedy union-find over pairs, best first, with chain-merge guards."""

    max_group: int = Field(8, ge=2, description="Chain-merge guard: no group grows beyond this many entities.")
    anchor_floor: float = Field(
        0.75,
        ge=-1.0,
        le=1.0,
        description="Chain-merge guard: every member must match the group's anchor (its first, most-mentioned "
        "entity) at least this well.",
    )
    same_type: bool = Field(False, description="Only merge entities of the same type.")


class BothMergerSettings(Section):
    """Merge confident groups, link the others (`merge_mode = "both"`)."""

    link_below: float = Field(0.9, ge=-1.0, le=1.0, description="Groups whose weakest link is under this are linked.")


class LlmReflectorSettings(Section):
    """The LLM scores each relation 0–1 with a reason (deg-rag)."""

    batch: int = Field(20, ge=1, description="Relations per reflection prompt.")
