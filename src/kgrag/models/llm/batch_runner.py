"""Submit collected requests as one batch, wait for it, and put its replies where the live path finds them.

A reply is accepted only as the live path would accept it: a 200 with text, not cut at ``max_tokens``,
and (when the request's parser is known, i.e. the batch was collected by this process) validated by that
same parser. An accepted reply goes into the response cache, and one ledger row is written for it with
``usage_source = "batch"``, so cost lines price it at ``llm.batch_price_share``. Everything else (a request
the batch failed, expired, cancelled, or answered unusably, and every request of a batch the server
refused as a whole) is sent at once as a live call, at live price, through the normal call path.

Polling backs off from ``llm.batch_poll_s`` to ``llm.batch_poll_max_s`` and prints one progress line per
poll, so a log shows a long wait is alive.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from pydantic import JsonValue

from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.models.llm.batch_api import ENDPOINT, BatchAPI, BatchAPIError, BatchResult, BatchStatus
from kgrag.models.llm.batch_book import BatchBook, BatchRecord
from kgrag.models.llm.batch_collect import Deferred
from kgrag.models.llm.calls import CallRunner, Parser
from kgrag.models.llm.reasoning import answer_only
from kgrag.models.llm.structured import ReplyInvalid
from kgrag.models.llm.tokens import count_message_tokens

ROUND_KEY = "kgrag_batch"  # the batch metadata naming the record, to find a batch created by a killed run
POLL_GROWTH = 1.5
MAX_REQUESTS = 50_000  # OpenAI's limits per batch input file: 50,000 requests and 200 MB
MAX_BYTES = 190 * 1024 * 1024
POLL_ERRORS = 5  # consecutive failed polls (network, 5xx) before the run stops; the batch stays pending


@dataclass(frozen=True)
class BatchSettings:
    """``llm.batch_*``: completion window, poll interval and its ceiling, most rounds per run; and the most
    lines and bytes one batch takes (a round past them is split into several batches)."""

    window: str = "24h"
    poll_s: float = 30.0
    poll_max_s: float = 300.0
    max_rounds: int = 8
    max_requests: int = MAX_REQUESTS
    max_bytes: int = MAX_BYTES


@dataclass
class BatchStats:
    """What the batches of one run did, for the index report."""

    batches: int = 0
    resumed: int = 0
    answered: int = 0
    live: int = 0
    expired: int = 0
    failed: int = 0
    invalid: int = 0

    def line(self) -> str:
        return (
            f"batch: {self.batches} batches ({self.resumed} resumed), {self.answered} requests answered at batch "
            f"price, {self.live} sent live ({self.failed} failed, {self.expired} expired, {self.invalid} unusable "
            "in the batch)"
        )


class BatchRunner:
    """Submits, polls and ingests the batches of one workspace run over ``api``, writing through ``runner``."""

    def __init__(
        self,
        api: BatchAPI,
        runner: CallRunner,
        book: BatchBook,
        body: Callable[[ChatRequest], dict[str, JsonValue]],
        settings: BatchSettings,
        note: Callable[[str], None],
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.api = api
        self.runner = runner
        self.book = book
        self.body = body
        self.settings = settings
        self.note = note
        self.sleep = sleep
        self.stats = BatchStats()
        self._reserved: dict[str, int] = {}  # budget reservations of the batches in flight, by record id

    def resume(self) -> int:
        """Finish the batches a killed run left (polled, never resubmitted); returns how many there were.
        Without any, the records of finished batches are dropped: this run starts afresh."""
        unfinished = self.book.unfinished()
        if not unfinished:
            self.book.forget_finished()
        for record in unfinished:
            self.note(f"resuming batch {record.batch_id or record.id} (round {record.round}) left by an earlier run")
            self.stats.resumed += 1
            self._complete(record, {})
        return len(unfinished)

    def run_round(self, collected: list[Deferred], round_no: int) -> None:
        """Submit ``collected`` as one batch (several past the server's size limits), wait, ingest."""
        parsers = {d.key: d.parse for d in collected if d.parse is not None}
        records = [self._submit(part, round_no) for part in self._parts(collected)]
        for record in records:  # all submitted first: the server works on them together
            self._complete(record, parsers)

    def _parts(self, collected: list[Deferred]) -> list[list[tuple[Deferred, dict[str, JsonValue]]]]:
        """The lines in groups within ``max_requests`` lines and ``max_bytes`` of JSONL each."""
        parts: list[list[tuple[Deferred, dict[str, JsonValue]]]] = [[]]
        size = 0
        for deferred in collected:
            line: dict[str, JsonValue] = {
                "custom_id": deferred.key,
                "method": "POST",
                "url": ENDPOINT,
                "body": self.body(deferred.request),
            }
            length = len(json.dumps(line, ensure_ascii=False).encode("utf-8")) + 1
            if parts[-1] and (len(parts[-1]) >= self.settings.max_requests or size + length > self.settings.max_bytes):
                parts.append([])
                size = 0
            parts[-1].append((deferred, line))
            size += length
        return [part for part in parts if part]

    def _submit(self, part: list[tuple[Deferred, dict[str, JsonValue]]], round_no: int) -> BatchRecord:
        record = BatchRecord.new(round_no, [d.key for d, _ in part])
        # the budget (--budget-tokens) holds the batch's worst case from before it is sent, as for a live call
        counter = self.runner.counter()
        worst = sum(count_message_tokens(counter, d.request.messages) + (d.request.max_tokens or 0) for d, _ in part)
        self._reserved[record.id] = self.runner.budget.reserve(worst)
        # uploaded first: a server without the Batch API refuses here, before anything is recorded
        record.input_file_id = self.api.upload([line for _, line in part], f"kgrag-round-{round_no}-{record.id}.jsonl")
        self.book.save_requests(record, {d.key: (d.stage, d.request) for d, _ in part})
        self.book.save(record)  # "submitting": a kill from here on finds the batch by this record's id
        self._create(record)
        return record

    def _complete(self, record: BatchRecord, parsers: dict[str, Parser]) -> None:
        if not record.batch_id:
            self._create(record)
        status = self._wait(record)
        live, spent = self._ingest(record, status, parsers)
        self.runner.budget.settle(self._reserved.pop(record.id, 0), spent)
        self._send_live(live, parsers)
        self.book.finish(record)

    def _create(self, record: BatchRecord) -> None:
        found = self.api.find(ROUND_KEY, record.id)  # created before a kill, its id never noted
        if found is None:
            found = self.api.create(record.input_file_id, self.settings.window, {ROUND_KEY: record.id})
            self.stats.batches += 1
        record.batch_id, record.status = found.id, "pending"
        self.book.save(record)
        self.note(f"batch {found.id} submitted: round {record.round}, {len(record.keys)} requests")

    def _wait(self, record: BatchRecord) -> BatchStatus:
        started = time.monotonic()
        delay = self.settings.poll_s
        errors = 0
        while True:
            try:
                status = self.api.retrieve(record.batch_id)
            except BatchAPIError as exc:
                errors += 1
                if errors >= POLL_ERRORS:
                    raise
                self.note(f"polling batch {record.batch_id} failed ({exc}); trying again in {delay:.0f} s")
                self.sleep(delay)
                continue
            errors = 0
            waited = time.monotonic() - started
            total = status.total or len(record.keys)
            self.note(
                f"batch {status.id} (round {record.round}): {status.status}, {status.completed}/{total} done, "
                f"{status.failed} failed, {_duration(waited)} waited"
            )
            if status.finished:
                return status
            self.sleep(delay)
            delay = min(delay * POLL_GROWTH, self.settings.poll_max_s)

    def _ingest(
        self, record: BatchRecord, status: BatchStatus, parsers: dict[str, Parser]
    ) -> tuple[list[tuple[str, str, ChatRequest]], int]:
        """Cache the usable replies; returns the requests to send live and the tokens the batch used."""
        requests = self.book.requests(record)
        results: list[BatchResult] = []
        for file_id in (status.output_file_id, status.error_file_id):
            if file_id:
                results.extend(self.api.results(file_id))
        if status.status == "failed":
            self.note(f"batch {status.id} was refused by the server ({'; '.join(status.errors) or 'no reason given'})")
        answered: set[str] = set()
        live: list[tuple[str, str, ChatRequest]] = []
        spent = 0
        for result in results:
            entry = requests.get(result.custom_id)
            if entry is None or result.custom_id in answered:
                continue
            answered.add(result.custom_id)
            used = self._accept(result, entry, parsers.get(result.custom_id))
            if used is not None:
                self.stats.answered += 1
                spent += used
            else:
                live.append((result.custom_id, *entry))
        expired = status.status in ("expired", "cancelled")
        for key in record.keys:
            if key not in answered and key in requests:
                live.append((key, *requests[key]))
                self.stats.expired += expired
                self.stats.failed += not expired
        return live, spent

    def _accept(self, result: BatchResult, entry: tuple[str, ChatRequest], parse: Parser | None) -> int | None:
        """Cache a usable reply and record it; its tokens, or None when it must go live."""
        response = result.response
        if response is None:
            self.stats.expired += bool(result.error and "expired" in result.error)
            self.stats.failed += not (result.error and "expired" in result.error)
            return None
        cache = self.runner.cache
        if cache is not None and cache.get(result.custom_id) is not None:
            return 0  # ingested by a run killed before it could mark the batch done: recorded once only
        if not _usable(answer_only(response), parse):
            self.stats.invalid += 1
            return None
        stage, request = entry
        return self.runner.accept_batch_reply(result.custom_id, request, stage, response).total_tokens

    def _send_live(self, live: list[tuple[str, str, ChatRequest]], parsers: dict[str, Parser]) -> None:
        """The live fallback: each request through the normal call path (cache, budget, retries, ledger)."""
        if not live:
            return
        self.note(f"{len(live)} requests the batch did not answer usably are sent as live calls")
        self.stats.live += len(live)
        workers = max(1, min(self.runner.limits.max_concurrency, len(live)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kgrag-batch-live") as pool:
            futures = [pool.submit(self.runner.run, request, stage, parsers.get(key)) for key, stage, request in live]
            for future in futures:
                future.result()  # a run-stopping error (budget, endpoint down) stops here


def _usable(response: ChatResponse, parse: Parser | None) -> bool:
    if not response.text or response.finish_reason == "length":
        return False
    if parse is None:
        return True  # parsed when the stage reads it from the cache; an invalid one is then dropped
    try:
        parse(response.text, response.finish_reason)
    except ReplyInvalid:
        return False
    return True


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{seconds:.1f}s"
