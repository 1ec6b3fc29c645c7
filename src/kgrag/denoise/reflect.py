"""Triple reflection (deg-rag §4.2): score every relation in [0, 1] with a short reason and drop those under
``denoise.drop_below`` (δ = 0.2 in deg-rag).

A reflector is chosen by name (``KINDS["triple_reflector"]``): ``llm`` asks the model, ``provenance``
scores support from the source text without one, ``none`` keeps everything. A relation a reflector could
not judge (a malformed reply, an item missing from it) gets no score and is *kept*: a failed judge must
never delete data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kgrag.config.denoise import DenoiseConfig
from kgrag.core.graph_records import RelationRecord
from kgrag.models.llm.client import LLMClient
from kgrag.store.base import Store


@dataclass(frozen=True)
class Verdict:
    """A reflector's judgement on one relation; ``score`` None means "could not judge" (kept)."""

    relation_id: str
    score: float | None
    reason: str


@dataclass(frozen=True)
class ReflectContext:
    """What a reflector may read: the store, entity names, the LLM client (if any), the ledger stage."""

    store: Store
    config: DenoiseConfig
    names: dict[str, str]
    llm: LLMClient | None = None
    stage: str = "index.reflect"


Reflector = Callable[[Sequence[RelationRecord], ReflectContext], list[Verdict]]
ReflectorFactory = Callable[[DenoiseConfig], Reflector]


@dataclass
class ReflectionPlan:
    """Verdicts in relation order, which relations to drop, and counts for the report."""

    method: str
    verdicts: list[Verdict] = field(default_factory=list)
    drop: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


def plan_reflection(
    relations: Sequence[RelationRecord], reflector: Reflector, ctx: ReflectContext, method: str
) -> ReflectionPlan:
    """Judge ``relations``; those scored under ``drop_below`` are planned for removal."""
    verdicts = reflector(relations, ctx) if relations else []
    drop = [v.relation_id for v in verdicts if v.score is not None and v.score < ctx.config.drop_below]
    counts = {
        "relations_judged": sum(v.score is not None for v in verdicts),
        "relations_unjudged": sum(v.score is None for v in verdicts),
        "relations_dropped": len(drop),
    }
    return ReflectionPlan(method, verdicts, drop, counts)


def keep_all(relations: Sequence[RelationRecord], ctx: ReflectContext) -> list[Verdict]:
    return []


def no_reflector(config: DenoiseConfig) -> Reflector:
    """``KINDS["triple_reflector"]["none"]``: judge nothing, drop nothing."""
    return keep_all
