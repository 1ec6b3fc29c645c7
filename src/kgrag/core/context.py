"""What retrieval hands to generation and evaluation: ranked context items, each with provenance,
per-step scores and a trace of how the pipeline got there."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from typing_extensions import TypedDict

if TYPE_CHECKING:  # pydantic loads with the layers that validate; naming a JSON value needs none of it
    from pydantic import JsonValue

ItemKind = Literal["chunk", "entity", "relation", "community", "path"]


class ContextItemDict(TypedDict):
    """A :class:`ContextItem` as JSON."""

    kind: ItemKind
    id: str
    text: str
    score: float
    chunk_ids: list[str]
    doc_id: str | None
    span: tuple[int, int] | None
    scores: dict[str, float]
    metadata: dict[str, JsonValue]


class TraceStepDict(TypedDict):
    """A :class:`TraceStep` as JSON."""

    step: str
    params: dict[str, JsonValue]
    n_out: int
    ms: float
    note: str


class RouteDict(TypedDict):
    """A :class:`RouteDecision` as JSON."""

    route: str
    pipeline: str
    decided_by: str
    reason: str
    fallback: str
    label: str


class RetrievalDict(TypedDict):
    """A :class:`RetrievalResult` as JSON (its items, trace and route; no intermediate answers)."""

    pipeline: str
    query: str
    queries: list[str]
    items: list[ContextItemDict]
    trace: list[TraceStepDict]
    route: RouteDict | None
    context_tokens: int | None


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
    metadata: dict[str, JsonValue] = field(default_factory=dict)
    """What the step that found the item notes about it (a name, a level, a path's explanation): JSON values
    of each step's own choosing."""

    def to_dict(self) -> ContextItemDict:
        return ContextItemDict(
            kind=self.kind,
            id=self.id,
            text=self.text,
            score=self.score,
            chunk_ids=list(self.chunk_ids),
            doc_id=self.doc_id,
            span=self.span,
            scores=dict(self.scores),
            metadata=copy.deepcopy(self.metadata),
        )


@dataclass
class TraceStep:
    """One step of a pipeline run: what it did, with which parameters, how long it took."""

    step: str
    params: dict[str, JsonValue]
    """The step's own parameters and counts as shown to a reader (each step chooses its keys)."""
    n_out: int
    ms: float
    note: str = ""

    def to_dict(self) -> TraceStepDict:
        params = copy.deepcopy(self.params)
        return TraceStepDict(step=self.step, params=params, n_out=self.n_out, ms=self.ms, note=self.note)


@dataclass(frozen=True)
class RouteDecision:
    """Where a routing pipeline (``auto``) sent the question: the route chosen (the key of the router's
    route table), the pipeline that served it, who decided (``llm``, ``heuristics`` or ``policy``), why, a
    note when it fell back to another route, and ``label``: what the decider found the question to be
    ("single fact", "multi-hop", "names 2 graph entities"), which need not be the route's name (the
    heuristics send a question naming two graph entities to the multi-hop route without knowing it is one)."""

    route: str
    pipeline: str
    decided_by: str
    reason: str
    fallback: str = ""
    label: str = ""

    def line(self) -> str:
        """The one line presenters print: ``label → pipeline (decided_by: reason)``, then any fallback."""
        fallback = f"; {self.fallback}" if self.fallback else ""
        return f"{self.label or self.route} → {self.pipeline} ({self.decided_by}: {self.reason}){fallback}"

    def to_dict(self) -> RouteDict:
        return RouteDict(
            route=self.route,
            pipeline=self.pipeline,
            decided_by=self.decided_by,
            reason=self.reason,
            fallback=self.fallback,
            label=self.label,
        )


@dataclass(frozen=True)
class PartialAnswer:
    """An answer a search wrote on its way to the context (DRIFT's primer or one of its follow-ups): the
    question it answers and the answer, its ``[c:ID]`` markers as the model wrote them."""

    question: str
    answer: str


@dataclass(frozen=True)
class IntermediateAnswers:
    """What a search that calls the LLM itself hands its answer step besides the context: its intermediate
    answers (best first) and what it spent of the query's prompt budget (``limit``), so the answer step
    fits its own call in what is left and reports the query's calls in total. A typed hand-off, so no
    answer step rebuilds it from trace step names."""

    partials: tuple[PartialAnswer, ...]
    limit: int
    spent: int
    llm_calls: int
    completion_tokens: int
    skipped_for_budget: int


@dataclass
class RetrievalResult:
    """Ranked items plus the trace; ``queries`` lists every query string the pipeline searched with.

    ``route`` is set when a routing step chose another pipeline; ``context_tokens`` is what the context
    budget spent on the items (None when the pipeline has no budget step); ``intermediate`` is what a
    search that answered on the way hands its answer step (DRIFT); ``retrieval_ms`` is the time of the
    whole run (the ``total`` trace step shows it too). Presenters and answer steps read these fields,
    never the trace's step names."""

    pipeline: str
    query: str
    items: list[ContextItem]
    trace: list[TraceStep] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    route: RouteDecision | None = None
    context_tokens: int | None = None
    intermediate: IntermediateAnswers | None = None
    retrieval_ms: float = 0.0

    def to_dict(self) -> RetrievalDict:
        return RetrievalDict(
            pipeline=self.pipeline,
            query=self.query,
            queries=self.queries,
            items=[item.to_dict() for item in self.items],
            trace=[step.to_dict() for step in self.trace],
            route=self.route.to_dict() if self.route else None,
            context_tokens=self.context_tokens,
        )
