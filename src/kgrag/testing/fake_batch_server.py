"""A fake OpenAI Batch API on 127.0.0.1: :class:`FakeOpenAIServer` plus ``/v1/files`` and ``/v1/batches``.

It speaks the real shapes: ``POST /v1/files`` (multipart, ``purpose=batch``) returns a file object;
``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``, ``metadata``) a batch object
that moves ``validating`` -> ``in_progress`` -> ``finalizing`` -> ``completed`` as it is polled
(``GET /v1/batches/{id}``), or ends ``failed``, ``expired`` or ``cancelled``; ``GET /v1/batches`` lists
them newest first; ``GET /v1/files/{id}/content`` returns the output and error files as JSONL lines of
``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``. Replies come from
the same responder as the live ``/v1/chat/completions`` route (e.g. the scripted extraction responder).

What can go wrong is set by :class:`BatchPlan`: completion after some polls, held back until
:meth:`FakeBatchServer.release` (to kill a client while a batch is pending), failed lines (HTTP 500 in the
error file), expiry after some requests (the rest ``batch_expired``), or a batch refused as a whole.
:class:`BatchServerStats` counts uploads, creations, polls and lines, so tests can check from the server's
side that nothing was submitted twice.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from typing import Any
from urllib.parse import parse_qs, urlsplit

from kgrag.testing.fake_openai_server import FakeOpenAIServer, Responder, completion_body, echo_responder
from kgrag.testing.wire import (
    BatchCreate,
    BatchInputLine,
    BatchList,
    BatchObject,
    BatchOutputLine,
    ChatBody,
    ErrorReply,
    FileObject,
)

JSON = "application/json"
EXPIRED_MESSAGE = "This request could not be executed before the completion window expired."


@dataclass
class BatchPlan:
    """How batches behave. ``polls_to_complete``: polls a batch answers as pending before it finishes;
    ``fail_every``: every n-th line fails (0: none); ``fail_when``: lines whose body it accepts fail;
    ``expire_after``: the batch expires after answering this many lines; ``refuse``: every batch ends
    ``failed`` at validation."""

    polls_to_complete: int = 2
    fail_every: int = 0
    fail_when: Callable[[ChatBody], bool] | None = None
    expire_after: int | None = None
    refuse: bool = False


@dataclass
class BatchServerStats:
    uploads: int = 0
    creates: int = 0
    polls: int = 0
    lists: int = 0
    lines: int = 0
    failed_lines: int = 0
    expired_lines: int = 0
    created_ids: list[str] = field(default_factory=list)


@dataclass
class _Batch:
    body: BatchObject
    number: int  # 1 for the first batch this server created
    polls: int = 0


class FakeBatchServer(FakeOpenAIServer):
    """``with FakeBatchServer(responder, plan=BatchPlan(...)) as server:``; ``server.base_url`` ends in ``/v1``."""

    def __init__(self, responder: Responder = echo_responder, plan: BatchPlan | None = None, **kwargs: Any) -> None:
        super().__init__(responder, **kwargs)
        self.plan = plan or BatchPlan()
        self.batch_stats = BatchServerStats()
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, _Batch] = {}
        self._lock = threading.RLock()
        self._ids = itertools.count(1)
        self._released = threading.Event()
        self._released.set()
        self._hold_after = 0
        self._state.extension = self._route

    # -- control ---------------------------------------------------------------------------------
    def hold(self, after: int = 0) -> None:
        """Keep the batches created after the first ``after`` (all, by default) ``in_progress`` until
        :meth:`release`."""
        self._hold_after = after
        self._released.clear()

    def release(self) -> None:
        self._released.set()

    def pending(self) -> int:
        """Batches not finished yet."""
        with self._lock:
            return sum(b.body["status"] in ("validating", "in_progress", "finalizing") for b in self._batches.values())

    # -- routes ----------------------------------------------------------------------------------
    def _route(self, handler: Any, method: str, raw: bytes) -> bool:
        """Answer ``/v1/files`` and ``/v1/batches`` on ``handler``; False for the routes of the base server."""
        parts = urlsplit(handler.path)
        segments = [s for s in parts.path.split("/") if s][1:]  # after "v1"
        if not segments or segments[0] not in ("files", "batches"):
            return False
        with self._lock:
            if segments[0] == "files":
                status, data, _ = self._files_route(method, segments, handler.headers, raw)
            else:
                status, data, _ = self._batches_route(method, segments, parse_qs(parts.query), raw)
        handler._send_raw(status, data)
        return True

    def _files_route(self, method: str, segments: list[str], headers: Any, raw: bytes) -> tuple[int, bytes, str]:
        if method == "POST" and len(segments) == 1:
            return self._upload(str(headers.get("Content-Type", "")), raw)
        if method == "GET" and len(segments) == 3 and segments[2] == "content" and segments[1] in self._files:
            return 200, self._files[segments[1]], "application/octet-stream"
        return _error(404, f"No such File object: {segments[-1]}")

    def _upload(self, content_type: str, raw: bytes) -> tuple[int, bytes, str]:
        message = BytesParser().parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw)
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in message.walk() if message.is_multipart() else []:
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if name is not None:
                fields[str(name)] = (part.get_filename(), payload if isinstance(payload, bytes) else b"")
        if "file" not in fields or fields.get("purpose", (None, b""))[1] != b"batch":
            return _error(400, "a multipart 'file' and purpose=batch are required")
        file_id = f"file-{next(self._ids):06d}"
        self._files[file_id] = fields["file"][1]
        self.batch_stats.uploads += 1
        return _ok({"id": file_id, "object": "file", "bytes": len(fields["file"][1]), "created_at": int(time.time()),
                    "filename": fields["file"][0] or "input.jsonl", "purpose": "batch"})  # fmt: skip

    def _batches_route(
        self, method: str, segments: list[str], query: dict[str, list[str]], raw: bytes
    ) -> tuple[int, bytes, str]:
        if method == "POST" and len(segments) == 1:
            return self._create(json.loads(raw or b"{}"))
        if method == "GET" and len(segments) == 1:
            return self._list(query)
        batch = self._batches.get(segments[1]) if len(segments) > 1 else None
        if batch is None:
            return _error(404, f"No such Batch object: {segments[-1]}")
        if method == "POST" and segments[-1] == "cancel":
            if batch.body["status"] not in ("completed", "failed", "expired"):
                batch.body["status"], batch.body["cancelled_at"] = "cancelled", int(time.time())
            return _ok(batch.body)
        if method == "GET":
            self.batch_stats.polls += 1
            self._advance(batch)
            return _ok(batch.body)
        return _error(405, "method not allowed")

    def _create(self, request: BatchCreate) -> tuple[int, bytes, str]:
        file_id = request.get("input_file_id")
        if file_id is None or file_id not in self._files:
            return _error(400, f"input_file_id {file_id!r} does not exist")
        if request.get("endpoint") != "/v1/chat/completions" or request.get("completion_window") != "24h":
            return _error(400, "endpoint must be /v1/chat/completions and completion_window 24h")
        endpoint = request["endpoint"]
        batch_id = f"batch_{next(self._ids):06d}"
        now = int(time.time())
        self._batches[batch_id] = _Batch(number=len(self._batches) + 1, body={
            "id": batch_id, "object": "batch", "endpoint": endpoint, "errors": None,
            "input_file_id": file_id, "completion_window": "24h", "status": "validating",
            "output_file_id": None, "error_file_id": None, "created_at": now, "in_progress_at": None,
            "expires_at": now + 86400, "finalizing_at": None, "completed_at": None, "failed_at": None,
            "expired_at": None, "cancelling_at": None, "cancelled_at": None,
            "request_counts": {"total": 0, "completed": 0, "failed": 0}, "metadata": request.get("metadata") or {},
        })  # fmt: skip
        self.batch_stats.creates += 1
        self.batch_stats.created_ids.append(batch_id)
        return _ok(self._batches[batch_id].body)

    def _list(self, query: dict[str, list[str]]) -> tuple[int, bytes, str]:
        self.batch_stats.lists += 1
        newest = sorted(self._batches, reverse=True)
        after = (query.get("after") or [""])[0]
        if after in newest:
            newest = newest[newest.index(after) + 1 :]
        limit = int((query.get("limit") or ["20"])[0])
        page = [self._batches[i].body for i in newest[:limit]]
        return _ok(BatchList({"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                    "last_id": page[-1]["id"] if page else None, "has_more": len(newest) > limit}))  # fmt: skip

    # -- processing ------------------------------------------------------------------------------
    def _advance(self, batch: _Batch) -> None:
        body = batch.body
        if body["status"] not in ("validating", "in_progress", "finalizing"):
            return
        batch.polls += 1
        lines: list[BatchInputLine] = [
            json.loads(x) for x in self._files[body["input_file_id"]].splitlines() if x.strip()
        ]
        body["request_counts"]["total"] = len(lines)
        if self.plan.refuse:
            body["status"], body["failed_at"] = "failed", int(time.time())
            body["errors"] = {"object": "list", "data": [{"code": "invalid_request",
                              "message": "the batch was refused (injected)", "param": None, "line": 1}]}  # fmt: skip
            return
        held = not self._released.is_set() and batch.number > self._hold_after
        if batch.polls < self.plan.polls_to_complete or held:
            body["status"], body["in_progress_at"] = "in_progress", body["in_progress_at"] or int(time.time())
            return
        self._finish(body, lines)

    def _finish(self, body: BatchObject, lines: list[BatchInputLine]) -> None:
        output: list[BatchOutputLine] = []
        errors: list[BatchOutputLine] = []
        for number, line in enumerate(lines, 1):
            self.batch_stats.lines += 1
            line_id, custom_id = f"batch_req_{number:06d}", line.get("custom_id")
            if self.plan.expire_after is not None and number > self.plan.expire_after:
                self.batch_stats.expired_lines += 1
                errors.append({"id": line_id, "custom_id": custom_id, "response": None,
                               "error": {"code": "batch_expired", "message": EXPIRED_MESSAGE}})  # fmt: skip
            elif self._fails(number, line.get("body") or {}):
                self.batch_stats.failed_lines += 1
                failure: ErrorReply = {"error": {"message": "internal error (injected)", "type": "server_error"}}
                errors.append({"id": line_id, "custom_id": custom_id, "response": {"status_code": 500,
                               "request_id": f"req_{number}", "body": failure}, "error": None})  # fmt: skip
            else:
                reply = completion_body(self, line.get("body") or {})
                output.append({"id": line_id, "custom_id": custom_id, "response": {"status_code": 200,
                               "request_id": f"req_{number}", "body": reply}, "error": None})  # fmt: skip
        now = int(time.time())
        expired = self.plan.expire_after is not None and self.plan.expire_after < len(lines)
        body["status"], body["finalizing_at"] = "expired" if expired else "completed", now
        if expired:
            body["expired_at"] = now
        else:
            body["completed_at"] = now
        body["request_counts"]["completed"], body["request_counts"]["failed"] = len(output), len(errors)
        body["output_file_id"] = self._store(output)
        body["error_file_id"] = self._store(errors)

    def _fails(self, number: int, request: ChatBody) -> bool:
        plan = self.plan
        return bool((plan.fail_every and number % plan.fail_every == 0) or (plan.fail_when and plan.fail_when(request)))

    def _store(self, lines: list[BatchOutputLine]) -> str | None:
        if not lines:
            return None
        file_id = f"file-{next(self._ids):06d}"
        self._files[file_id] = "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")
        return file_id


def _ok(payload: BatchObject | BatchList | FileObject) -> tuple[int, bytes, str]:
    return 200, json.dumps(payload).encode("utf-8"), JSON


def _error(status: int, message: str) -> tuple[int, bytes, str]:
    return status, json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode("utf-8"), JSON
