"""LLM triple reflection (deg-rag §4.2): the model scores batches of relations 0–1 with a short reason.

The reply envelope is lenient (``scores`` is a list of anything) and each item is validated on its own,
so one bad item costs that relation its verdict, not the whole batch; a reply that fails even the
envelope after the client's one re-ask leaves the batch unjudged (kept). Calls are booked under the
caller's ledger stage (``index.reflect``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgrag.config.denoise import DenoiseConfig
from kgrag.core.errors import ConfigError
from kgrag.core.graph_records import RelationRecord
from kgrag.denoise.reflect import ReflectContext, Reflector, Verdict
from kgrag.denoise.settings import LlmReflectorSettings

REFLECT_PROMPT = "reflect_triples"
MAX_DESCRIPTION_CHARS = 300


class TripleScore(BaseModel):
    """One verdict as the model must write it."""

    model_config = ConfigDict(extra="ignore")

    id: int
    score: float = Field(ge=0.0, le=1.0)
    reason: str = ""


class TripleScores(BaseModel):
    """``KINDS["prompt_schema"]["triple_scores"]``: the reply envelope, items checked one by one."""

    model_config = ConfigDict(extra="ignore")

    scores: list[Any] = Field(default_factory=list)


def triple_line(number: int, r: RelationRecord, names: dict[str, str]) -> str:
    """One relation of a reflection batch, as the model reads it (``names``: entity id to name)."""
    description = " ".join(r.description.split())[:MAX_DESCRIPTION_CHARS]
    source, target = names.get(r.source_id, r.source_id), names.get(r.target_id, r.target_id)
    return f"{number}. {source} | {r.label} | {target}: {description}"


def _verdicts(batch: Sequence[RelationRecord], value: TripleScores | None, error: str | None) -> list[Verdict]:
    judged: dict[int, TripleScore] = {}
    for item in value.scores if value is not None else []:
        try:
            parsed = TripleScore.model_validate(item)
        except ValidationError:
            continue
        judged.setdefault(parsed.id, parsed)
    out = []
    for number, r in enumerate(batch, start=1):
        found = judged.get(number)
        if found is None:
            out.append(Verdict(r.id, None, f"not judged: {error or 'missing or invalid in the reply'}"[:200]))
        else:
            out.append(Verdict(r.id, found.score, " ".join(found.reason.split())[:200]))
    return out


def score_by_llm(relations: Sequence[RelationRecord], ctx: ReflectContext) -> list[Verdict]:
    if ctx.llm is None or not ctx.llm.available:
        raise ConfigError("denoise.reflection = 'llm' needs an LLM; set llm.provider or use `provenance`")
    size = ctx.config.entry_settings("reflectors", "llm", LlmReflectorSettings).batch
    batches = [list(relations[s : s + size]) for s in range(0, len(relations), size)]
    variables = [
        {"triples": "\n".join(triple_line(i, r, ctx.names) for i, r in enumerate(b, start=1))} for b in batches
    ]
    results = ctx.llm.map_structured(REFLECT_PROMPT, variables, TripleScores, stage=ctx.stage)
    verdicts: list[Verdict] = []
    for batch, result in zip(batches, results, strict=True):
        verdicts.extend(_verdicts(batch, result.value, result.error))
    return verdicts


def llm_reflector(config: DenoiseConfig) -> Reflector:
    """``KINDS["triple_reflector"]["llm"]``."""
    return score_by_llm
