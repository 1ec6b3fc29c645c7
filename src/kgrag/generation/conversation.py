"""Questions asked as a conversation (``ws.conversations``), each follow-up rewritten to stand on its own.

Two ways in: :meth:`Conversations.answer` takes the history from the caller (the OpenAI-compatible
endpoint, whose client sends the whole conversation each time) and stores nothing;
:meth:`Conversations.ask` keeps the conversation in the workspace's store under an id (``kgrag chat``,
the API's ``conversation_id``), so it can be continued later, listed and deleted. Either way the
question is rewritten from the history that fits ``generation.history_share`` of the context budget
(:mod:`kgrag.generation.rewrite`), retrieval and the answer run on the rewrite, and the trace starts with
a ``rewrite`` step.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from kgrag.core.conversation_records import ConversationRecord, ConversationTurn
from kgrag.core.errors import KgragError
from kgrag.core.llm_types import StreamSink
from kgrag.generation.respond import QueryResponse, QueryResponseDict
from kgrag.generation.rewrite import Rewrite, Turn, timed_rewrite

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.retrieval import QueryContext
    from kgrag.store import Store

TITLE_CHARS = 80


class ReplyDict(QueryResponseDict):
    """A :class:`ConversationReply` as JSON: the response's fields, the conversation and the rewrite."""

    conversation_id: str | None
    question: str
    standalone_question: str
    rewrite_method: str


@dataclass
class ConversationReply:
    """The answer to one turn: the conversation it belongs to (None when not stored), the rewrite, the
    response (its trace starts with the rewrite)."""

    conversation_id: str | None
    rewrite: Rewrite
    response: QueryResponse

    def to_dict(self) -> ReplyDict:
        return {
            **self.response.to_dict(),
            "conversation_id": self.conversation_id,
            "question": self.rewrite.question,
            "standalone_question": self.rewrite.standalone,
            "rewrite_method": self.rewrite.method,
        }


def new_conversation_id() -> str:
    return "conv-" + uuid.uuid4().hex[:16]


def _turns(record: ConversationRecord) -> list[Turn]:
    return [Turn(t.question, t.answer, t.standalone) for t in record.turns]


class ConversationParts(Protocol):
    """The workspace's parts a conversation reads (the config is read on every turn)."""

    @property
    def config(self) -> KgragConfig: ...

    @property
    def store(self) -> Store: ...

    @property
    def query_context(self) -> QueryContext: ...


class Asking(Protocol):
    """The workspace's query path: retrieve and answer one (standalone) question."""

    def query(
        self,
        question: str,
        pipeline: str | None = None,
        k: int | None = None,
        *,
        context_tokens: int | None = None,
        sink: StreamSink | None = None,
        context_only: bool = False,
    ) -> QueryResponse: ...


class Conversations:
    """Follow-up questions over one workspace's ``querying``; conversations kept in its store."""

    def __init__(self, parts: ConversationParts, querying: Asking) -> None:
        self._parts = parts
        self._querying = querying

    def answer(
        self,
        question: str,
        history: Sequence[Turn] = (),
        pipeline: str | None = None,
        k: int | None = None,
        *,
        context_tokens: int | None = None,
        sink: StreamSink | None = None,
        context_only: bool = False,
    ) -> ConversationReply:
        """Answer ``question`` as the next turn after ``history`` (stores nothing); ``context_only``
        retrieves for the rewritten question and writes no answer."""
        if not question.strip():
            raise KgragError("the question is empty; type a question")
        generation = self._parts.config.generation
        budget = int((context_tokens or generation.context_tokens) * generation.history_share)
        rewrite, ms = timed_rewrite(question, history, self._parts.query_context.llm(), budget)
        response = self._querying.query(
            rewrite.standalone, pipeline, k, context_tokens=context_tokens, sink=sink, context_only=context_only
        )
        response.result.trace.insert(0, rewrite.trace_step(ms))
        return ConversationReply(None, rewrite, response)

    def ask(
        self,
        question: str,
        conversation_id: str | None = None,
        pipeline: str | None = None,
        k: int | None = None,
        *,
        context_tokens: int | None = None,
        sink: StreamSink | None = None,
        context_only: bool = False,
    ) -> ConversationReply:
        """Answer ``question`` in the stored conversation ``conversation_id`` (a new one when None) and
        append the turn to it."""
        record = self._start() if conversation_id is None else self.get(conversation_id)
        reply = self.answer(
            question,
            _turns(record),
            pipeline,
            k,
            context_tokens=context_tokens,
            sink=sink,
            context_only=context_only,
        )
        now = time.time()
        answer = reply.response.answer
        turn = ConversationTurn(
            question=reply.rewrite.question,
            standalone=reply.rewrite.standalone,
            answer=answer.text,
            citations=list(answer.citations),
            pipeline=reply.response.result.pipeline,
            created_at=now,
        )
        title = record.title or " ".join(question.split())[:TITLE_CHARS]
        self._parts.store.conversations.save(replace(record, updated_at=now, title=title, turns=(*record.turns, turn)))
        reply.conversation_id = record.id
        return reply

    def list(self) -> list[ConversationRecord]:
        """Every stored conversation, most recently continued first."""
        return self._parts.store.conversations.list()

    def find(self, conversation_id: str) -> ConversationRecord | None:
        """The stored conversation ``conversation_id``, or None."""
        return self._parts.store.conversations.get(conversation_id)

    def get(self, conversation_id: str) -> ConversationRecord:
        """The stored conversation ``conversation_id``; a clear error when there is none."""
        record = self._parts.store.conversations.get(conversation_id)
        if record is None:
            raise KgragError(f"no conversation {conversation_id!r} in this workspace (see `kgrag chat --list`)")
        return record

    def delete(self, conversation_id: str) -> bool:
        """Delete the conversation; False when there was none."""
        return self._parts.store.conversations.delete(conversation_id)

    def _start(self) -> ConversationRecord:
        now = time.time()
        return ConversationRecord(new_conversation_id(), now, now, "")
