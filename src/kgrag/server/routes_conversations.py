"""``/v1/workspaces/{workspace}/query/stream`` (an answer as server-sent events) and
``/conversations`` (the stored conversations: list, read, delete), via ``ws.querying`` and
``ws.conversations`` only.

The stream's events: ``delta`` (``{"text"}``: the next piece of the answer, as the model writes it),
then ``citations`` (``{"citations", "passages"}``), ``trace`` (``{"trace", "timings_ms", "route",
"context_tokens"}``) and ``result`` (the whole answer, as ``POST /query`` returns it; its ``answer`` is
the checked text, which replaces what streamed), or one ``error`` event (``{"error": {"status", "code",
"message"}}``). A client that closes the connection stops the LLM request.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from kgrag.core.conversation_records import ConversationRecord, TurnDict
from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError
from kgrag.server.routes_query import QueryRequest, QueryResult, answer, check_question
from kgrag.server.streams import Event, EventShapes, event_stream

router = APIRouter(tags=["conversations"])

CONVERSATION_ID = r"^[A-Za-z0-9_-]{1,64}$"


class ConversationSummary(BaseModel):
    """A stored conversation without its turns."""

    id: str
    title: str = Field(description="Its first question, shortened.")
    turns: int
    created_at: float
    updated_at: float


class ConversationList(BaseModel):
    conversations: list[ConversationSummary]


class Deleted(TypedDict):
    deleted: str


class Conversation(BaseModel):
    """A stored conversation with its turns (question, standalone rewrite, answer, citations, pipeline)."""

    id: str
    title: str
    created_at: float
    updated_at: float
    turns: list[TurnDict]


def _final_events(result: QueryResult) -> list[Event]:
    data = result.model_dump()
    return [
        ("citations", {"citations": data["citations"], "passages": data["passages"]}),
        ("trace", {k: data[k] for k in ("trace", "timings_ms", "route", "context_tokens")}),
        ("result", data),
    ]


@router.post(
    "/query/stream",
    summary="Answer a question with one pipeline, streamed as server-sent events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "delta…, citations, trace, result"}},
)
def query_stream(body: QueryRequest, hosted: WorkspaceDep, request: Request) -> StreamingResponse:
    question = check_question(request, body.question)
    if body.conversation_id not in (None, "new") and hosted.ws.conversations.find(body.conversation_id) is None:
        raise ApiError(404, "not_found", f"no conversation {body.conversation_id!r}")  # before the stream starts
    return event_stream(
        request,
        lambda sink: answer(hosted, body, question, sink),
        EventShapes(lambda text: [("delta", {"text": text})], _final_events, lambda error: [("error", error)]),
        hosted.scrub,
    )


def _summary(record: ConversationRecord) -> ConversationSummary:
    return ConversationSummary(
        id=record.id,
        title=record.title,
        turns=len(record.turns),
        created_at=record.created_at,
        updated_at=record.updated_at,
    )


@router.get("/conversations", response_model=ConversationList, summary="List the stored conversations")
def list_conversations(hosted: WorkspaceDep) -> ConversationList:
    return ConversationList(conversations=[_summary(r) for r in hosted.ws.conversations.list()])


@router.get("/conversations/{conversation_id}", response_model=Conversation, summary="Read a conversation")
def get_conversation(hosted: WorkspaceDep, conversation_id: str) -> Conversation:
    record = hosted.ws.conversations.find(conversation_id)
    if record is None:
        raise ApiError(404, "not_found", f"no conversation {conversation_id!r}")
    return Conversation(**record.to_dict())


@router.delete("/conversations/{conversation_id}", summary="Delete a conversation")
def delete_conversation(hosted: WorkspaceDep, conversation_id: str) -> Deleted:
    if not hosted.ws.conversations.delete(conversation_id):
        raise ApiError(404, "not_found", f"no conversation {conversation_id!r}")
    return {"deleted": conversation_id}
