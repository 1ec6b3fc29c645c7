"""Optional LLM confirmation of resolution groups (feldt-hellstrom-2026: merge yes/no, which name stays).

Only groups the model accepts are kept; a rejected group or one whose reply stays invalid after the
client's re-ask is dropped from the plan (never merged on a guess). The model's choice of name makes that
member the canonical entity. Its merged description is reported but not stored: descriptions are derived
from mentions and re-summarised by the configured summariser, which keeps them reproducible.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kgrag.core.graph_records import EntityRecord
from kgrag.denoise.types import Group, ResolutionGraph, ResolutionPlan
from kgrag.models.llm.client import LLMClient

CONFIRM_PROMPT = "confirm_merge"
MAX_DESCRIPTION_CHARS = 240


class MergeDecision(BaseModel):
    """``KINDS["prompt_schema"]["merge_decision"]``."""

    model_config = ConfigDict(extra="ignore")

    merge: bool
    keep: int = 1
    description: str = ""


def entity_line(number: int, name: str, type_: str, description: str) -> str:
    """One candidate of a confirmation prompt, as the model reads it."""
    return f"{number}. {name} ({type_}): {' '.join(description.split())[:MAX_DESCRIPTION_CHARS]}"


def _entities(group: Group, graph: ResolutionGraph, records: dict[str, EntityRecord]) -> str:
    lines = []
    for number, index in enumerate(group.members, start=1):
        record = records.get(graph.ids[index])
        lines.append(entity_line(number, graph.names[index], graph.types[index], record.description if record else ""))
    return "\n".join(lines)


def confirm_groups(
    plan: ResolutionPlan, graph: ResolutionGraph, records: dict[str, EntityRecord], client: LLMClient, stage: str
) -> ResolutionPlan:
    """The plan with only the groups the LLM confirmed (canonical = the member it keeps)."""
    variables = [{"entities": _entities(g, graph, records)} for g in plan.groups]
    results = client.map_structured(CONFIRM_PROMPT, variables, MergeDecision, stage=stage) if variables else []
    kept: list[Group] = []
    rejected = invalid = 0
    for group, result in zip(plan.groups, results, strict=True):
        decision = result.value
        if decision is None:
            invalid += 1
            continue
        if not decision.merge:
            rejected += 1
            continue
        if 1 <= decision.keep <= len(group.members):
            group.canonical = group.members[decision.keep - 1]
        group.reason = f"{group.reason}; LLM confirmed" + (
            f": {decision.description[:160]}" if decision.description else ""
        )
        kept.append(group)
    counts = {**plan.counts, "llm_rejected": rejected, "llm_invalid": invalid, "groups": len(kept)}
    out = ResolutionPlan(kept, counts)
    out.counts["merged_away"] = out.merged_away
    out.counts["linked"] = sum(len(g.aliases) for g in kept if g.mode == "link")
    return out
