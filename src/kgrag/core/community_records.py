"""Community records as stored: the hierarchy (levels, parent links, members), per-level modularity and
the reports written about each community.

They live in ``core`` because the store persists them and the ``communities`` layer computes them, and
the store must not import that layer. A community's id is derived from its level and its members
(:func:`community_id`), so an unchanged community keeps its id across rebuilds and its report is reused:
that is what makes report generation incremental.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

ReportMethod = Literal["llm", "extractive", "inherited", "fallback"]


def community_id(level: int, entity_ids: Iterable[str]) -> str:
    """``c<level>-<hash of the sorted member ids>``: same level and members, same id (and report)."""
    digest = hashlib.sha256("\n".join(sorted(entity_ids)).encode("utf-8")).hexdigest()[:16]
    return f"c{level}-{digest}"


@dataclass(frozen=True)
class CommunityRecord:
    """One community of one level. Level 0 is the finest; ``parent_id`` is the community of the next
    level up that holds it (None at the top level). ``entity_ids`` are all entities inside it, sorted."""

    id: str
    level: int
    parent_id: str | None
    entity_ids: tuple[str, ...]
    children: int = 0

    @property
    def size(self) -> int:
        return len(self.entity_ids)


@dataclass(frozen=True)
class LevelStats:
    """One level of the hierarchy: how many communities it has and the partition's modularity."""

    level: int
    communities: int
    modularity: float


@dataclass(frozen=True)
class Finding:
    """One key finding of a report, with the entity/relation ids it rests on."""

    summary: str
    explanation: str = ""
    refs: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommunityReport:
    """What a community is about: title, summary, key findings with citations and an importance rating
    (0–10). ``method`` says how it was made (``llm``, ``extractive``, ``inherited`` from a single child,
    ``fallback``: extractive after the LLM reply failed). ``text`` is what retrieval embeds and returns."""

    community_id: str
    level: int
    title: str
    summary: str
    findings: tuple[Finding, ...] = ()
    rating: float = 0.0
    method: ReportMethod = "extractive"
    chunk_ids: tuple[str, ...] = field(default=())

    @property
    def text(self) -> str:
        lines = [f"# {self.title}", self.summary]
        lines += [f"- {f.summary}" + (f" {f.explanation}" if f.explanation else "") for f in self.findings]
        return "\n".join(line for line in lines if line.strip())
