"""Records of graph denoising as the store keeps them: runs, merges, relation scores.

They live in ``core`` because both the store (which persists them) and the denoise layer (which makes
them) need them, and the store must not import the layers above it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class DenoiseRun:
    """One applied denoising run. ``fingerprint`` is the graph's fingerprint right after the run, so undo
    can tell whether anything changed the graph since (then restoring would lose that change)."""

    id: str
    created: str
    status: str  # "applied" or "undone"
    fingerprint: str
    summary: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class MergeEntry:
    """One alias folded into (or linked to) a canonical entity, with why."""

    run_id: str
    canonical_id: str
    canonical_name: str
    alias_id: str
    alias_key: str
    alias_name: str
    score: float
    mode: str = "merge"  # "merge" (alias folded in) or "link" (synonym relation added)
    reason: str = ""


@dataclass(frozen=True)
class RelationScore:
    """A reflection verdict on one relation: support in [0, 1], a short reason, and whether it was dropped."""

    run_id: str
    relation_id: str
    source_name: str
    target_name: str
    label: str
    score: float
    reason: str
    method: str  # "llm" or "provenance"
    dropped: bool


@dataclass(frozen=True)
class MergeCounts:
    """What re-pointing mentions did: mentions moved, relations re-keyed, self-loops dropped."""

    entity_mentions: int = 0
    relations_moved: int = 0
    self_loops: int = 0


@dataclass(frozen=True)
class SplitCounts:
    """What splitting a merged name out of its entity moved: entity mentions, relation mentions, and
    mentions of relations between the two that the merge had dropped as self-loops and the split restored."""

    entity_mentions: int = 0
    relation_mentions: int = 0
    restored_loops: int = 0
