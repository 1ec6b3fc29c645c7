"""The OpenAI wire shapes the fake servers read and write: a chat-completion request as a client sends it
(any subset of its fields), and the completion, embeddings and error replies they answer with."""

from __future__ import annotations

from typing import Literal, NotRequired

from pydantic import JsonValue
from typing_extensions import TypedDict

from kgrag.core.llm_types import Message


class ChatBody(TypedDict, total=False):
    """A ``/v1/chat/completions`` (or ``/v1/embeddings``) request body, before anything checked it."""

    model: str
    messages: list[Message]
    max_tokens: int | None
    temperature: float
    stream: bool
    stream_options: dict[str, JsonValue]
    response_format: dict[str, JsonValue]
    input: str | list[str]
    dimensions: int


class ReplyMessage(TypedDict):
    role: Literal["assistant"]
    content: str | int | None
    """Text, or the wrong value a content fault injects (a number, null)."""
    reasoning_content: NotRequired[str]
    """A reasoning model's thinking, sent apart by servers with a reasoning parser."""


class Choice(TypedDict):
    index: int
    message: ReplyMessage
    finish_reason: str


class WireUsage(TypedDict):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class Completion(TypedDict):
    """An unstreamed chat completion."""

    id: str
    object: str
    created: int
    model: str
    choices: list[Choice]
    usage: NotRequired[WireUsage]


class ErrorDetail(TypedDict):
    message: str
    type: NotRequired[str]


class ErrorReply(TypedDict):
    error: ErrorDetail


class Embedding(TypedDict):
    object: str
    index: int
    embedding: list[float]


class EmbeddingUsage(TypedDict):
    prompt_tokens: int
    total_tokens: int


class EmbeddingsReply(TypedDict):
    """A ``/v1/embeddings`` reply."""

    object: str
    data: list[Embedding]
    model: str
    usage: EmbeddingUsage


Reply = Completion | ErrorReply | EmbeddingsReply | dict[str, JsonValue]
"""What the fake OpenAI server sends: a completion, an error, embeddings, or another small JSON object."""


class RequestCounts(TypedDict):
    total: int
    completed: int
    failed: int


class BatchObject(TypedDict):
    """A Batch API batch object (``/v1/batches``)."""

    id: str
    object: str
    endpoint: str
    errors: dict[str, JsonValue] | None
    input_file_id: str
    completion_window: str
    status: str
    output_file_id: str | None
    error_file_id: str | None
    created_at: int
    in_progress_at: int | None
    expires_at: int
    finalizing_at: int | None
    completed_at: int | None
    failed_at: int | None
    expired_at: int | None
    cancelling_at: int | None
    cancelled_at: int | None
    request_counts: RequestCounts
    metadata: dict[str, JsonValue]


class BatchList(TypedDict):
    object: str
    data: list[BatchObject]
    first_id: str | None
    last_id: str | None
    has_more: bool


class FileObject(TypedDict):
    id: str
    object: str
    bytes: int
    created_at: int
    filename: str
    purpose: str


class BatchCreate(TypedDict, total=False):
    """A ``POST /v1/batches`` request body, before anything checked it."""

    input_file_id: str
    endpoint: str
    completion_window: str
    metadata: dict[str, JsonValue] | None


class BatchInputLine(TypedDict, total=False):
    """One line of a batch's input file."""

    custom_id: str
    method: str
    url: str
    body: ChatBody


class LineResponse(TypedDict):
    status_code: int
    request_id: str
    body: Completion | ErrorReply


class LineError(TypedDict):
    code: str
    message: str


class BatchOutputLine(TypedDict):
    """One line of a batch's output or error file."""

    id: str
    custom_id: str | None
    response: LineResponse | None
    error: LineError | None
