"""The batches a workspace has submitted, kept in its meta table so a killed run resumes them.

Written before and after each step that reaches the server: a record (with the requests, by cache key)
is saved as ``submitting`` once the input file is uploaded, ``pending`` with the batch id once the batch
exists, ``done`` once its replies are cached. A run that finds a ``pending`` record polls that batch
instead of submitting again; a ``submitting`` one is looked up on the server by the record id in the
batch's metadata (a kill between creating the batch and noting its id), and created only when absent.

Both store backends keep meta rows, so this works the same on SQLite and PostgreSQL. Two rows in all: the
records, and the requests of the batches not finished yet (dropped from it as each finishes).
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Literal

from pydantic import JsonValue
from typing_extensions import TypedDict

from kgrag.core.llm_types import ChatRequest, Message, PromptRef
from kgrag.store.base import MetaRepository

INDEX_KEY = "llm.batches"
REQUESTS_KEY = "llm.batch.requests"  # {record id: {cache key: {stage, request}}} of unfinished batches
RecordStatus = Literal["submitting", "pending", "done"]


@dataclass
class BatchRecord:
    """One submitted batch; ``keys`` are the cache keys of its requests (its lines' ``custom_id``)."""

    id: str
    round: int
    status: RecordStatus = "submitting"
    input_file_id: str = ""
    batch_id: str = ""
    keys: list[str] = field(default_factory=list)
    created_at: float = 0.0

    @classmethod
    def new(cls, round_no: int, keys: list[str]) -> BatchRecord:
        return cls(uuid.uuid4().hex[:16], round_no, keys=keys, created_at=time.time())


class StoredRequest(TypedDict):
    """A :class:`ChatRequest` as the meta table keeps it (``prompt``: name and version, or null)."""

    messages: list[Message]
    model: str
    params: dict[str, JsonValue]
    prompt: list[str] | None


class StoredLine(TypedDict):
    """One request of an unfinished batch: its ledger stage and the request."""

    stage: str
    request: StoredRequest


def request_to_json(request: ChatRequest) -> StoredRequest:
    prompt = [request.prompt.name, request.prompt.version] if request.prompt else None
    return {"messages": [{"role": m["role"], "content": m["content"]} for m in request.messages],
            "model": request.model, "params": request.params, "prompt": prompt}  # fmt: skip


def request_from_json(data: StoredRequest) -> ChatRequest:
    prompt = data.get("prompt")
    ref = PromptRef(str(prompt[0]), str(prompt[1])) if isinstance(prompt, list) and len(prompt) == 2 else None
    messages = tuple(Message(role=m["role"], content=m["content"]) for m in data["messages"])
    return ChatRequest(messages, str(data["model"]), dict(data.get("params") or {}), ref)


class BatchBook:
    """Batch records in the meta table: one index row, plus one row of requests per unfinished batch."""

    def __init__(self, meta: MetaRepository) -> None:
        self._meta = meta

    def records(self) -> list[BatchRecord]:
        raw = self._meta.get(INDEX_KEY)
        if not raw:
            return []
        return [BatchRecord(**item) for item in json.loads(raw)]

    def unfinished(self) -> list[BatchRecord]:
        return [r for r in self.records() if r.status != "done"]

    def attempted(self) -> set[str]:
        """Cache keys some finished batch already tried (answered or sent live after it)."""
        return {key for r in self.records() if r.status == "done" for key in r.keys}

    def save(self, record: BatchRecord) -> None:
        kept = [r for r in self.records() if r.id != record.id]
        self._meta.set(INDEX_KEY, json.dumps([asdict(r) for r in [*kept, record]]))

    def forget_finished(self) -> None:
        """Drop the records of finished batches (a new run starts with none attempted)."""
        self._meta.set(INDEX_KEY, json.dumps([asdict(r) for r in self.unfinished()]))

    def save_requests(self, record: BatchRecord, requests: dict[str, tuple[str, ChatRequest]]) -> None:
        """The requests of ``record`` by cache key, with their ledger stage (needed to ingest after a kill)."""
        payload: dict[str, StoredLine] = {
            key: {"stage": stage, "request": request_to_json(req)} for key, (stage, req) in requests.items()
        }
        self._set_requests({**self._all_requests(), record.id: payload})

    def requests(self, record: BatchRecord) -> dict[str, tuple[str, ChatRequest]]:
        data = self._all_requests().get(record.id, {})
        return {key: (str(v["stage"]), request_from_json(v["request"])) for key, v in data.items()}

    def finish(self, record: BatchRecord) -> None:
        record.status = "done"
        self.save(record)
        self._set_requests({k: v for k, v in self._all_requests().items() if k != record.id})  # no longer needed

    def _all_requests(self) -> dict[str, dict[str, StoredLine]]:
        raw = self._meta.get(REQUESTS_KEY)
        return json.loads(raw) if raw else {}

    def _set_requests(self, data: dict[str, dict[str, StoredLine]]) -> None:
        self._meta.set(REQUESTS_KEY, json.dumps(data, ensure_ascii=False))
