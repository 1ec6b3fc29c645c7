"""The OpenAI-compatible endpoint: ``GET /v1/models`` and ``POST /v1/chat/completions``, so chat front ends
(Open WebUI, LibreChat) and the ``openai`` SDK can use a workspace as a "model".

The model name selects the workspace and the pipeline: ``kgrag/<workspace>/<pipeline>``, or
``kgrag/<workspace>`` for its default pipeline. The messages are the conversation: the last one is the
question, the earlier user/assistant pairs its history (``ws.conversations.answer``: the question is
rewritten from them before retrieval; nothing is stored). The reply's text carries the ``[c:ID]``
citations inline and ends with a ``Sources:`` list naming each cited passage's document; the same
passages come back as data in the extra ``citations`` field (id, document, source, text, and
``attributed``: true when kgrag aligned an uncited sentence to it rather than the model citing it), and
the rewrite and the cost in ``kgrag``. ``stream: true`` streams ``chat.completion.chunk`` events, the last one holding
``citations``, ``kgrag`` and ``usage``. Request fields kgrag does not use (``temperature``…) are ignored.
Keys, loopback and rate limits are those of every other route.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, JsonValue
from typing_extensions import TypedDict

from kgrag.core.errors import StoreUnavailableError
from kgrag.generation.conversation import ConversationReply
from kgrag.generation.respond import CostDict
from kgrag.generation.rewrite import Turn
from kgrag.server.deps import CallerDep
from kgrag.server.errors import ApiError
from kgrag.server.routes_query import QueryResult, check_question, to_result
from kgrag.server.state import HostedWorkspace, server_state
from kgrag.server.streams import Event, EventShapes, event_stream

router = APIRouter(tags=["openai"])

PREFIX = "kgrag"
SOURCES = "\n\nSources:\n"


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: str
    content: str | list[dict[str, JsonValue]] | None = None

    def text(self) -> str:
        """The message's text (a list of content parts: its text parts joined)."""
        if isinstance(self.content, list):
            return "\n".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return self.content or ""


class ChatCompletionRequest(BaseModel):
    """An OpenAI chat completion request; the fields kgrag does not use are ignored."""

    model_config = ConfigDict(extra="ignore")

    model: str = Field(description="`kgrag/<workspace>/<pipeline>` or `kgrag/<workspace>` (see GET /v1/models).")
    messages: list[ChatMessage] = Field(min_length=1, description="The conversation; the last message is asked.")
    stream: bool = False
    k: int | None = Field(None, ge=1, le=100, description="kgrag: passages to retrieve (default: retrieval.k).")


def _resolve(request: Request, who: CallerDep, model: str) -> tuple[HostedWorkspace, str | None]:
    parts = model.split("/")
    hosted = server_state(request).workspaces.get(parts[1]) if len(parts) in (2, 3) and parts[0] == PREFIX else None
    if hosted is None or not who.may_use(hosted.name):
        raise ApiError(404, "model_not_found", f"no model {model!r}; see GET /v1/models (kgrag/<workspace>/<pipeline>)")
    return hosted, (parts[2] if len(parts) == 3 else None)


def _conversation(messages: list[ChatMessage]) -> tuple[str, list[Turn]]:
    """The question (the last message, which must be the user's) and the earlier user/assistant pairs."""
    if messages[-1].role != "user":
        raise ApiError(422, "invalid_request", "messages: the last message must be the user's question")
    turns: list[Turn] = []
    pending: str | None = None
    for message in messages[:-1]:
        if message.role == "user":
            pending = message.text()
        elif message.role == "assistant" and pending is not None:
            turns.append(Turn(pending, message.text().split(SOURCES)[0]))
            pending = None
    return messages[-1].text(), turns


def _sources(result: QueryResult) -> str:
    cited = [p for p in result.passages if p.cited]
    return SOURCES + "\n".join(f"[c:{p.chunk_id}] {p.source}" for p in cited) if cited else ""


class CitedPassage(TypedDict):
    id: str
    doc_id: str | None
    source: str
    text: str
    attributed: bool


class KgragFacts(TypedDict):
    """What kgrag adds to a completion: pipeline, the question and its rewrite, mode, idk and cost."""

    pipeline: str
    question: str
    standalone_question: str
    mode: str
    idk: bool
    cost: CostDict


class CompletionUsage(TypedDict):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class CompletionExtras(TypedDict):
    """The fields a completion (or its last chunk) carries besides the OpenAI ones kgrag fills."""

    citations: list[CitedPassage]
    kgrag: KgragFacts
    usage: CompletionUsage


class ModelCard(TypedDict):
    id: str
    object: str
    created: int
    owned_by: str


class ModelList(TypedDict):
    """``GET /v1/models``: every workspace and its ready pipelines, as OpenAI models."""

    object: str
    data: list[ModelCard]


def _extras(result: QueryResult, reply: ConversationReply) -> CompletionExtras:
    cited = [p for p in result.passages if p.cited]
    return {
        "citations": [
            {"id": p.chunk_id, "doc_id": p.doc_id, "source": p.source, "text": p.text, "attributed": p.attributed}
            for p in cited
        ],
        "kgrag": {
            "pipeline": result.pipeline,
            "question": reply.rewrite.question,
            "standalone_question": reply.rewrite.standalone,
            "mode": result.mode,
            "idk": result.idk,
            "cost": result.cost,
        },
        "usage": {
            "prompt_tokens": result.cost.get("prompt_tokens", 0),
            "completion_tokens": result.cost.get("completion_tokens", 0),
            "total_tokens": result.cost.get("prompt_tokens", 0) + result.cost.get("completion_tokens", 0),
        },
    }


@router.get("/models", summary="The workspaces and pipelines, as OpenAI models")
def list_models(request: Request, who: CallerDep) -> ModelList:
    data: list[ModelCard] = []
    for name, hosted in server_state(request).workspaces.items():
        if not who.may_use(name):
            continue
        try:
            ready = [info.name for info in hosted.ws.querying.pipelines() if info.ready]
        except StoreUnavailableError:  # the workspace is listed; asking it says why it cannot answer now
            ready = []
        for model in [f"{PREFIX}/{name}", *(f"{PREFIX}/{name}/{pipeline}" for pipeline in ready)]:
            data.append({"id": model, "object": "model", "created": 0, "owned_by": "kgrag"})
    return {"object": "list", "data": data}


@router.post(
    "/chat/completions",
    summary="Answer the last message of a conversation (OpenAI-compatible; streamed with stream: true)",
    responses={200: {"content": {"text/event-stream": {}}}},
)
def chat_completions(body: ChatCompletionRequest, request: Request, who: CallerDep) -> Any:
    hosted, pipeline = _resolve(request, who, body.model)
    question, history = _conversation(body.messages)
    question = check_question(request, question)
    completion_id, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
    head = {"id": completion_id, "created": created, "model": body.model}

    def run(sink: Any = None) -> tuple[QueryResult, ConversationReply]:
        reply = hosted.ws.conversations.answer(question, history, pipeline, body.k, sink=sink)
        return to_result(hosted, reply.response), reply

    if not body.stream:
        result, reply = run()
        message = {"role": "assistant", "content": result.answer + _sources(result)}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return {**head, "object": "chat.completion", "choices": [choice], **_extras(result, reply)}
    chunk = {**head, "object": "chat.completion.chunk"}

    def delta(text: str) -> list[Event]:
        return [(None, {**chunk, "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})]

    def final(done: tuple[QueryResult, ConversationReply]) -> list[Event]:
        result, reply = done
        last = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], **_extras(result, reply)}
        sources = _sources(result)
        return [*(delta(sources) if sources else []), (None, last), (None, "[DONE]")]

    shapes: EventShapes[tuple[QueryResult, ConversationReply]] = EventShapes(delta, final, lambda e: [(None, e)])
    opening = [(None, {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]})]
    return event_stream(request, run, shapes, hosted.scrub, opening)
