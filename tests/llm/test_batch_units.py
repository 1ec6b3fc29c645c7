"""The pieces of batch indexing on their own: collect mode (a miss deferred, never sent or cached; the round
barrier), result lines in the real output/error file shapes, and the Batch API client against the fake."""

from __future__ import annotations

import dataclasses
import json

import pytest

from kgrag.config import LLMConfig
from kgrag.core.llm_types import ChatRequest, PromptRef
from kgrag.models.llm import InMemoryLedger, InMemoryResponseCache, ScriptedProvider, ScriptRule
from kgrag.models.llm.batch_api import BatchAPI, BatchUnsupportedError, parse_result_line
from kgrag.models.llm.batch_collect import BatchCollector, Deferred, RoundBarrier
from kgrag.models.llm.client import LLMClient
from kgrag.models.llm.registry import create_llm_client
from kgrag.testing import BatchPlan, FakeBatchServer, FakeOpenAIServer


def _request(prompt: str, text: str = "x") -> ChatRequest:
    return ChatRequest(({"role": "user", "content": text},), "m", {}, PromptRef(prompt, "1"))


def test_a_round_takes_extraction_and_gleaning_together_and_stops_at_the_next_family() -> None:
    collector = BatchCollector()
    collector.defer(Deferred("a", _request("extract_graph"), "index.extract"))
    collector.defer(Deferred("b", _request("glean_graph"), "index.glean"))
    with pytest.raises(RoundBarrier):
        collector.defer(Deferred("c", _request("summarize_descriptions"), "index.summarize"))
    assert [d.key for d in collector.requests()] == ["a", "b"]


def test_a_request_an_earlier_batch_tried_is_left_to_the_live_run_and_sets_no_barrier() -> None:
    collector = BatchCollector(attempted={"a"})
    collector.defer(Deferred("a", _request("extract_graph"), "index.extract"))
    collector.defer(Deferred("c", _request("summarize_descriptions"), "index.summarize"))
    assert [d.key for d in collector.requests()] == ["c"] and collector.skipped == 1


def test_collect_mode_defers_a_miss_without_sending_caching_or_recording_it() -> None:
    provider = ScriptedProvider([ScriptRule(".", '{"answer": "sent"}')])
    cache, ledger = InMemoryResponseCache(), InMemoryLedger()

    class Store:  # the two repositories create_llm_client takes from a store
        llm_cache, llm_ledger = cache, ledger

    client = create_llm_client(LLMConfig(provider="scripted"), Store(), provider=provider)  # type: ignore[arg-type]
    hit = client.chat([{"role": "user", "content": "cached"}], stage="s")  # cached by a live call
    collector = BatchCollector()
    collecting = LLMClient(dataclasses.replace(client.runner, collector=collector), client.settings)
    assert collecting.deferring and not client.deferring
    again = collecting.chat([{"role": "user", "content": "cached"}], stage="s")
    missing = collecting.chat([{"role": "user", "content": "new"}], stage="s")
    assert again.text == hit.text and missing.text == "" and missing.estimated
    assert [d.stage for d in collector.requests()] == ["s"]
    assert len(provider.requests) == 1 and cache.count() == 1  # nothing sent or cached for the miss
    assert len(ledger.records) == 2  # the live call and the cache hit; the deferral is no call


def test_result_lines_in_the_output_and_error_file_shapes() -> None:
    ok = {"id": "batch_req_1", "custom_id": "k1", "error": None, "response": {"status_code": 200, "request_id": "r",
          "body": {"choices": [{"message": {"content": "{}"}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 5, "completion_tokens": 2}}}}  # fmt: skip
    failed = {"id": "batch_req_2", "custom_id": "k2", "error": None,
              "response": {"status_code": 500, "body": {"error": {"message": "boom"}}}}  # fmt: skip
    expired = {"id": "batch_req_3", "custom_id": "k3", "response": None,
               "error": {"code": "batch_expired", "message": "window ended"}}  # fmt: skip
    parsed = [parse_result_line(json.dumps(line)) for line in (ok, failed, expired)]
    assert parsed[0] is not None and parsed[0].response is not None and parsed[0].response.prompt_tokens == 5
    assert parsed[1] is not None and parsed[1].response is None and "HTTP 500" in (parsed[1].error or "")
    assert parsed[2] is not None and (parsed[2].error or "").startswith("batch_expired")
    assert parse_result_line("not json") is None and parse_result_line('{"no": "id"}') is None
    unreadable = parse_result_line(json.dumps({**ok, "response": {"status_code": 200, "body": {"choices": []}}}))
    assert unreadable is not None and unreadable.response is None


def test_the_client_speaks_the_fake_batch_api_and_finds_a_batch_by_its_metadata() -> None:
    with FakeBatchServer(lambda body: "reply", plan=BatchPlan(polls_to_complete=1, fail_every=2)) as server:
        api = BatchAPI(server.base_url, "sk-test")
        bodies = [{"model": "m", "messages": [{"role": "user", "content": str(i)}]} for i in range(3)]
        lines = [{"custom_id": f"k{i}", "method": "POST", "url": "/v1/chat/completions", "body": body}
                 for i, body in enumerate(bodies)]  # fmt: skip
        created = api.create(api.upload(lines, "in.jsonl"), "24h", {"kgrag_batch": "r1"})
        assert created.status == "validating" and api.find("kgrag_batch", "r1") == created
        assert api.find("kgrag_batch", "other") is None
        done = api.retrieve(created.id)
        assert done.status == "completed" and (done.total, done.completed, done.failed) == (3, 2, 1)
        results = {r.custom_id: r for f in (done.output_file_id, done.error_file_id) if f for r in api.results(f)}
        assert results["k0"].response is not None and results["k0"].response.text == "reply"
        assert results["k1"].response is None
        api.close()
    with FakeOpenAIServer() as plain:
        api = BatchAPI(plain.base_url)
        with pytest.raises(BatchUnsupportedError, match="has no Batch API"):
            api.upload(lines, "in.jsonl")
        api.close()


def test_a_checkpoint_ends_the_round_only_when_something_was_deferred() -> None:
    collector = BatchCollector()
    collector.checkpoint()  # nothing deferred yet: the next level's requests are sound
    collector.defer(Deferred("a", _request("community_report"), "index.community-reports"))
    with pytest.raises(RoundBarrier):
        collector.checkpoint()


class _Meta:
    """A meta table in a dict (the two methods the batch book uses)."""

    def __init__(self) -> None:
        self.rows: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.rows.get(key)

    def set(self, key: str, value: str) -> None:
        self.rows[key] = value


def test_a_batch_created_just_before_a_kill_is_found_by_its_record_not_created_again() -> None:
    from kgrag.models.llm.batch_book import BatchBook, BatchRecord
    from kgrag.models.llm.batch_runner import ROUND_KEY, BatchRunner, BatchSettings

    provider = ScriptedProvider([ScriptRule(".", "live reply")])
    client = create_llm_client(LLMConfig(provider="scripted"), provider=provider)
    request = _request("summarize_descriptions", "notes")
    key = request.cache_key(provider.name)
    book = BatchBook(_Meta())  # type: ignore[arg-type]
    with FakeBatchServer(lambda body: "batch reply", plan=BatchPlan(polls_to_complete=1)) as server:
        api = BatchAPI(server.base_url)
        record = BatchRecord.new(1, [key])  # the killed run: uploaded, created, killed before noting the id
        book.save_requests(record, {key: ("index.summarize", request)})
        line = {"custom_id": key, "method": "POST", "url": "/v1/chat/completions", "body": {"messages": []}}
        record.input_file_id = api.upload([line], "in.jsonl")
        book.save(record)
        api.create(record.input_file_id, "24h", {ROUND_KEY: record.id})
        notes: list[str] = []
        runner = BatchRunner(api, client.runner, book, lambda r: {}, BatchSettings(poll_s=0.01), notes.append)
        assert runner.resume() == 1
        assert server.batch_stats.creates == 1 and runner.stats.batches == 0
        api.close()
    assert book.unfinished() == [] and book.attempted() == {key}
    cached = client.runner.cache.get(key) if client.runner.cache is not None else None
    assert cached is not None and cached.text == "batch reply" and provider.requests == []
    assert [r.usage_source for r in client.ledger.calls()] == ["batch"]
    assert any("in_progress" in n or "completed" in n for n in notes)


def test_a_round_past_the_size_limit_is_split_into_batches_all_submitted_before_polling() -> None:
    from kgrag.models.llm.batch_book import BatchBook
    from kgrag.models.llm.batch_runner import BatchRunner, BatchSettings

    provider = ScriptedProvider([ScriptRule(".", "live reply")])
    client = create_llm_client(LLMConfig(provider="scripted"), provider=provider)
    collected = [
        Deferred(r.cache_key(provider.name), r, "index.summarize")
        for r in (_request("summarize_descriptions", f"notes {i}") for i in range(5))
    ]
    book = BatchBook(_Meta())  # type: ignore[arg-type]
    with FakeBatchServer(lambda body: "batch reply", plan=BatchPlan(polls_to_complete=2)) as server:
        api = BatchAPI(server.base_url)
        settings = BatchSettings(poll_s=0.01, max_requests=2)
        body = lambda r: {"model": r.model, "messages": list(r.messages)}  # noqa: E731
        runner = BatchRunner(api, client.runner, book, body, settings, lambda note: None)
        created_at_polls: list[int] = []
        retrieve = api.retrieve
        api.retrieve = lambda batch_id: (created_at_polls.append(server.batch_stats.creates), retrieve(batch_id))[1]  # type: ignore[method-assign]
        runner.run_round(collected, 1)
        assert created_at_polls and set(created_at_polls) == {3}  # every poll came after the third creation
        api.close()
        assert server.batch_stats.creates == 3 and server.batch_stats.lines == 5
    assert runner.stats.answered == 5 and runner.stats.live == 0 and provider.requests == []
    assert book.unfinished() == [] and len(book.attempted()) == 5
    rows = client.ledger.calls()
    assert client.runner.budget.used == sum(r.prompt_tokens + r.completion_tokens for r in rows) > 0


def test_the_official_openai_client_reads_the_fake_batch_api() -> None:
    """The fake speaks OpenAI's shapes: the ``openai`` package's typed models accept every reply."""
    import io

    import openai

    with FakeBatchServer(lambda body: "a reply", plan=BatchPlan(polls_to_complete=1, expire_after=1)) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
        lines = [
            {"custom_id": f"k{i}", "method": "POST", "url": "/v1/chat/completions",
             "body": {"model": "m", "messages": [{"role": "user", "content": f"q{i}"}]}}
            for i in range(2)
        ]  # fmt: skip
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        uploaded = client.files.create(file=("in.jsonl", io.BytesIO(data)), purpose="batch")
        batch = client.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h", metadata={"a": "b"}
        )
        assert batch.status == "validating" and batch.metadata == {"a": "b"}
        done = client.batches.retrieve(batch.id)
        assert done.status == "expired" and done.request_counts is not None and done.request_counts.total == 2
        assert [b.id for b in client.batches.list()] == [batch.id]
        assert done.output_file_id and done.error_file_id
        output = [json.loads(x) for x in client.files.content(done.output_file_id).text.splitlines()]
        errors = [json.loads(x) for x in client.files.content(done.error_file_id).text.splitlines()]
        assert output[0]["response"]["body"]["choices"][0]["message"]["content"] == "a reply"
        assert errors[0]["error"]["code"] == "batch_expired" and errors[0]["custom_id"] == "k1"
        client.close()


def test_a_round_over_the_token_budget_is_not_submitted() -> None:
    from kgrag.core.errors import BudgetExceededError
    from kgrag.models.llm.batch_book import BatchBook
    from kgrag.models.llm.batch_runner import BatchRunner, BatchSettings

    provider = ScriptedProvider([ScriptRule(".", "live reply")])
    client = create_llm_client(LLMConfig(provider="scripted", max_tokens_budget=300), provider=provider)
    request = ChatRequest(({"role": "user", "content": "notes " * 50},), "m", {"max_tokens": 400})
    collected = [Deferred(request.cache_key(provider.name), request, "index.summarize")]
    book = BatchBook(_Meta())  # type: ignore[arg-type]
    with FakeBatchServer(lambda body: "batch reply") as server:
        api = BatchAPI(server.base_url)
        body = lambda r: {"model": r.model, "messages": list(r.messages)}  # noqa: E731
        runner = BatchRunner(api, client.runner, book, body, BatchSettings(poll_s=0.01), lambda note: None)
        with pytest.raises(BudgetExceededError, match="max_tokens_budget"):
            runner.run_round(collected, 1)
        api.close()
        assert server.batch_stats.uploads == 0 and server.batch_stats.creates == 0
    assert book.records() == [] and client.runner.budget.used == 0
