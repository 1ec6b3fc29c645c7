"""``/v1/workspaces/{workspace}/query`` and ``/compare``: the same question through one or several
pipelines, answered with cited passages, the trace and the cost, via ``ws.querying`` only."""

from __future__ import annotations

from pathlib import PurePath
from typing import NotRequired

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field, JsonValue
from typing_extensions import TypedDict

from kgrag.core.context import ContextItemDict, ItemKind, RouteDict, TraceStepDict
from kgrag.core.llm_types import StreamSink
from kgrag.generation import QueryResponse
from kgrag.generation.respond import CostDict
from kgrag.generation.types import SentenceDict
from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError
from kgrag.server.plain import plain_json
from kgrag.server.state import HostedWorkspace, server_state

router = APIRouter(tags=["query"])

MAX_K = 100


class QueryRequest(BaseModel):
    """One question through one pipeline."""

    question: str = Field(min_length=1, description="The question.")
    pipeline: str | None = Field(None, description="Pipeline name (default: retrieval.default_pipeline).")
    k: int | None = Field(None, ge=1, le=MAX_K, description="Passages to retrieve (default: retrieval.k).")
    context_tokens: int | None = Field(
        None,
        ge=1,
        le=1_000_000,
        description="Token budget of the answer's context (default: generation.context_tokens).",
    )
    conversation_id: str | None = Field(
        None,
        max_length=64,
        description='Ask as the next turn of this stored conversation (`"new"` starts one): the question is '
        "rewritten from the earlier turns before retrieval, and the turn is stored (GET /conversations).",
    )
    context_only: bool = Field(
        False, description="Retrieve only: the passages and trace, no answer written (no LLM call; mode `context`)."
    )


class CompareRequest(BaseModel):
    """One question through several pipelines, answered side by side."""

    question: str = Field(min_length=1)
    pipelines: list[str] = Field(min_length=1, description="Pipeline names, each answered independently.")
    k: int | None = Field(None, ge=1, le=MAX_K)
    context_tokens: int | None = Field(None, ge=1, le=1_000_000)


class Passage(BaseModel):
    """A retrieved chunk, with where it comes from and whether the answer cites it."""

    chunk_id: str
    doc_id: str | None
    source: str
    text: str
    score: float
    cited: bool
    attributed: bool = False
    """Cited because kgrag aligned an answer sentence the model left uncited to it (not by the model)."""
    span: list[int] | None = None
    excerpt: bool = False
    """Only some sentences of the chunk: the context budget's leftover room (``retrieval.excerpts``)."""


class TraceOut(TypedDict):
    """One trace step (:class:`~kgrag.core.context.TraceStepDict`, declared here for the response model)."""

    step: str
    params: dict[str, JsonValue]
    n_out: int
    ms: float
    note: str


class ItemOut(TypedDict):
    """A retrieved item as the answer lists it: a chunk's text is in ``passages``, not repeated here."""

    kind: ItemKind
    id: str
    text: NotRequired[str]
    score: int | float
    chunk_ids: list[str]
    doc_id: str | None
    span: tuple[int, int] | None
    scores: dict[str, float]
    metadata: dict[str, JsonValue]


def _plain_object(value: dict[str, JsonValue]) -> dict[str, JsonValue]:
    return {k: plain_json(v) for k, v in value.items()}


def _trace_out(step: TraceStepDict) -> TraceOut:
    return TraceOut(
        step=step["step"], params=_plain_object(step["params"]), n_out=step["n_out"], ms=step["ms"], note=step["note"]
    )


def _item_out(item: ContextItemDict) -> ItemOut:
    out = ItemOut(
        kind=item["kind"],
        id=item["id"],
        score=item["score"],
        chunk_ids=item["chunk_ids"],
        doc_id=item["doc_id"],
        span=item["span"],
        scores=item["scores"],
        metadata=_plain_object(item["metadata"]),
    )
    if item["kind"] != "chunk":
        out["text"] = item["text"]
    return out


class QueryResult(BaseModel):
    """An answer, its passages (cited ones flagged), the graph items it used, its trace and cost."""

    pipeline: str
    answer: str
    mode: str
    idk: bool
    citations: list[str]
    attributed: list[str] = Field(
        default_factory=list,
        description="The citations kgrag attributed to sentences the model left uncited (a subset of `citations`).",
    )
    sentences: list[SentenceDict] = Field(
        default_factory=list,
        description="Each answer sentence with its support: `status` `cited` (by the model), `miscited` (by the "
        "model, with passages that do not support it; `score`), `attributed` (by kgrag, `passages` and `score`) "
        "or `unsupported` (no passage reaches the threshold).",
    )
    warnings: list[str] = Field(default_factory=list, description="What a reader should know before trusting it.")
    passages: list[Passage]
    items: list[ItemOut] = Field(description="Every retrieved item (chunks, entities, relations) with scores.")
    trace: list[TraceOut]
    cost: CostDict = Field(description="LLM tokens and money of the answer (zero for extractive answers).")
    timings_ms: dict[str, float]
    context_tokens: int = Field(0, description="Tokens of context handed to the answer.")
    route: RouteDict | None = Field(
        None,
        description="Where a routing pipeline (`auto`) sent the question: route, pipeline, decided_by, reason, "
        "fallback, and label (what the router found the question to be, e.g. `single fact`).",
    )
    conversation_id: str | None = Field(None, description="The stored conversation this turn belongs to.")
    standalone_question: str | None = Field(
        None, description="In a conversation: the question as rewritten from the earlier turns and searched for."
    )


class CompareOutcome(BaseModel):
    """One pipeline's result, or why it could not answer (the others still do)."""

    pipeline: str
    result: QueryResult | None = None
    error: str | None = None


class CompareResult(BaseModel):
    question: str
    outcomes: list[CompareOutcome]


def _source_names(hosted: HostedWorkspace, doc_ids: set[str]) -> dict[str, str]:
    """Document titles or file names, never the server-side path."""
    names = {}
    for doc_id in doc_ids:
        doc = hosted.ws.documents.get(doc_id)
        if doc is not None:
            names[doc_id] = doc.title or PurePath(doc.source).name
    return names


def _passages(hosted: HostedWorkspace, response: QueryResponse) -> list[Passage]:
    """Chunk items in rank order, plus cited chunks the ranking did not list (graph provenance)."""
    cited = set(response.answer.citations)
    attributed = set(response.answer.attributed)
    chunks = [item for item in response.result.items if item.kind == "chunk"]
    listed = {item.id for item in chunks}
    extra = hosted.ws.documents.chunks([cid for cid in response.answer.citations if cid not in listed])
    texts = {c.id: c for c in hosted.ws.documents.chunks([i.id for i in chunks if not i.text])}
    names = _source_names(
        hosted, {i.doc_id or "" for i in chunks} | {c.doc_id for c in extra} | {c.doc_id for c in texts.values()}
    )
    out = []
    for item in chunks:
        record = texts.get(item.id)
        doc_id = item.doc_id or (record.doc_id if record else None)
        span = list(item.span) if item.span else ([record.char_start, record.char_end] if record else None)
        text = item.text or (record.text if record else "")
        out.append(
            Passage(
                chunk_id=item.id,
                doc_id=doc_id,
                source=names.get(doc_id or "", ""),
                text=text,
                score=item.score,
                cited=item.id in cited,
                attributed=item.id in attributed,
                span=span,
                excerpt=bool(item.metadata.get("excerpt")),
            )
        )
    out += [
        Passage(
            chunk_id=c.id,
            doc_id=c.doc_id,
            source=names.get(c.doc_id, ""),
            text=c.text,
            score=0.0,
            cited=True,
            span=[c.char_start, c.char_end],
        )
        for c in extra
    ]
    return out


def to_result(hosted: HostedWorkspace, response: QueryResponse) -> QueryResult:
    data = response.to_dict()
    return QueryResult(
        pipeline=response.result.pipeline,
        answer=response.answer.text,
        mode=response.answer.mode,
        idk=response.answer.idk,
        citations=response.answer.citations,
        attributed=response.answer.attributed,
        sentences=[s.to_dict() for s in response.answer.sentences],
        warnings=response.answer.warnings,
        passages=_passages(hosted, response),
        items=[_item_out(item) for item in data["retrieval"]["items"]],
        trace=[_trace_out(step) for step in data["retrieval"]["trace"]],
        cost=response.cost.to_dict(),
        timings_ms=response.timings_ms,
        context_tokens=response.context_tokens,
        route=response.route.to_dict() if response.route else None,
    )


def check_question(request: Request, question: str) -> str:
    limit = server_state(request).limits.max_question_chars
    if len(question) > limit:
        raise ApiError(413, "too_large", f"question longer than {limit} characters")
    if not question.strip():
        raise ApiError(422, "invalid_request", "question: must not be blank")
    return question


def answer(hosted: HostedWorkspace, body: QueryRequest, question: str, sink: StreamSink | None = None) -> QueryResult:
    """The answer to ``body``, as a conversation's next turn when it names one; ``sink`` streams it."""
    if body.conversation_id is None:
        response = hosted.ws.querying.query(
            question,
            body.pipeline,
            body.k,
            context_tokens=body.context_tokens,
            sink=sink,
            context_only=body.context_only,
        )
        return to_result(hosted, response)
    conversation = None if body.conversation_id == "new" else body.conversation_id
    reply = hosted.ws.conversations.ask(
        question,
        conversation,
        body.pipeline,
        body.k,
        context_tokens=body.context_tokens,
        sink=sink,
        context_only=body.context_only,
    )
    result = to_result(hosted, reply.response)
    result.conversation_id, result.standalone_question = reply.conversation_id, reply.rewrite.standalone
    return result


@router.post("/query", response_model=QueryResult, summary="Answer a question with one pipeline")
def query(body: QueryRequest, hosted: WorkspaceDep, request: Request) -> QueryResult:
    return answer(hosted, body, check_question(request, body.question))


@router.post("/compare", response_model=CompareResult, summary="Answer a question with several pipelines")
def compare(body: CompareRequest, hosted: WorkspaceDep, request: Request) -> CompareResult:
    question = check_question(request, body.question)
    names = list(dict.fromkeys(body.pipelines))
    limit = server_state(request).limits.max_compare_pipelines
    if len(names) > limit:
        raise ApiError(422, "invalid_request", f"pipelines: at most {limit} per comparison")
    compared = hosted.ws.querying.compare(question, names, body.k, context_tokens=body.context_tokens)
    outcomes = [
        CompareOutcome(pipeline=o.pipeline, error=o.error)
        if o.response is None
        else CompareOutcome(pipeline=o.pipeline, result=to_result(hosted, o.response))
        for o in compared
    ]
    return CompareResult(question=question, outcomes=outcomes)
