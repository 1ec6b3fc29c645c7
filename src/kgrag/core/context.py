"""What retrieval hands to generation and evaluation: ranked context items, each with provenance,
per-step scores and a trace of how the pipeline got there."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

ItemKind = Literal["chunk", "entity", "relation", "community", "path"]


@dataclass
class ContextItem:
    """One retrieved piece of context.

    ``chunk_ids`` is the provenance every item carries: a chunk is its own provenance; an entity or a
    relation points to the chunks it was extracted from. ``scores`` keeps one score per step that saw
    the item (e.g. ``{"dense": 0.71, "bm25": 8.2, "rrf": 0.032}``) so an evaluator can see why it ranked.
    """

    kind: ItemKind
    id: str
    text: str
    score: float
    chunk_ids: list[str] = field(default_factory=list)
    doc_id: str | None = None
    span: tuple[int, int] | None = None
    scores: dict[str, float] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TraceStep:
    """One step of a pipeline run: what it did, with which parameters, how long it took."""

    step: str
    params: dict[str, Any]
    n_out: int
    ms: float
    note: str = ""


@dataclass(frozen=True)
class RouteDecision:
    """Where a routing pipeline (``auto``) sent the question: the route chosen, the pipeline that served
    it, who decided (``llm`` or ``heuristics``), why, and a note when it fell back to another route."""

    route: str
    pipeline: str
    decided_by: str
    reason: str
    fallback: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RetrievalResult:
    """Ranked items plus the trace; ``queries`` lists every query string the pipeline searched with.

    ``route`` is set when a routing step chose another pipeline; ``context_tokens`` is what the context
    budget spent on the items (None when the pipeline has no budget step). Presenters read these fields,
    never the trace's step names."""

    pipeline: str
    query: str
    items: list[ContextItem]
    trace: list[TraceStep] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    route: RouteDecision | None = None
    context_tokens: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pipeline": self.pipeline,
            "query": self.query,
            "queries": self.queries,
            "items": [item.to_dict() for item in self.items],
            "trace": [asdict(step) for step in self.trace],
            "route": self.route.to_dict() if self.route else None,
            "context_tokens": self.context_tokens,
        }
