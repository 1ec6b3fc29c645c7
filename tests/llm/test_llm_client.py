"""Client behaviour: cache, validation, re-ask, budget, estimate mode, ledger, providers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.store.backends import StoreMaker

from kgrag.config import LLMConfig
from kgrag.core.errors import BudgetExceededError, ConfigError, ModelError
from kgrag.models.llm import (
    ChatRequest,
    InMemoryLedger,
    RecordingProvider,
    ScriptedProvider,
    ScriptRule,
    check_context_window,
    create_llm_client,
    llm_free_note,
    llm_status,
)
from kgrag.models.llm.base import ProviderError
from kgrag.models.llm.tokens import count_message_tokens
from kgrag.store import Store
from kgrag.testing import FakeOpenAIServer

Reply = Callable[[ChatRequest], str]


def _square_rule(reply: Reply | str | None = None, times: int | None = None) -> ScriptRule:
    def correct(request: ChatRequest) -> str:
        first_user = next(m["content"] for m in request.messages if m["role"] == "user")
        n = int(first_user.split("item ")[1].split()[0])
        return json.dumps({"n": n, "square": n * n})

    return ScriptRule(r"Compute item", reply if reply is not None else correct, times=times)


def _scripted_client(prompts_dir: Path, *rules: ScriptRule, store: Store | None = None, **cfg: Any) -> Any:
    provider = ScriptedProvider(list(rules))
    client = create_llm_client(LLMConfig(provider="scripted", prompts_dir=prompts_dir, **cfg), store, provider=provider)
    return client, provider


def test_none_provider_is_unavailable_and_says_so() -> None:
    client = create_llm_client(LLMConfig())
    assert client.available is False
    with pytest.raises(ModelError, match=r"llm\.provider = none"):
        client.chat([{"role": "user", "content": "hi"}], stage="test")
    assert "LLM-free" in llm_free_note("query.generate")


def test_cache_hit_on_identical_request(prompts_dir: Path, square_model: Any) -> None:
    client, provider = _scripted_client(prompts_dir, _square_rule())
    first = client.structured("square", {"n": 4}, square_model, stage="test")
    second = client.structured("square", {"n": 4}, square_model, stage="test")
    assert first.value == second.value and second.usage.cached and not first.usage.cached
    assert len(provider.requests) == 1
    assert client.summary().total.cache_hits == 1
    assert client.summary().total.hit_rate == pytest.approx(0.5)


def test_cache_persists_in_the_workspace_database(
    prompts_dir: Path, make_persistent_store: StoreMaker, square_model: Any
) -> None:
    store = make_persistent_store()
    client, _ = _scripted_client(prompts_dir, _square_rule(), store=store)
    client.structured("square", {"n": 2}, square_model, stage="test")
    store.close()
    store = make_persistent_store()
    again, provider2 = _scripted_client(prompts_dir, _square_rule(), store=store)
    assert again.structured("square", {"n": 2}, square_model, stage="test").usage.cached
    assert provider2.requests == [] and store.llm_cache.count() == 1
    assert store.llm_ledger.summary().total.calls == 2


def test_failed_validation_is_never_cached_and_reask_recovers(prompts_dir: Path, square_model: Any) -> None:
    bad = _square_rule('{"n": "not a number"}', times=1)
    client, provider = _scripted_client(prompts_dir, bad, _square_rule())
    result = client.structured("square", {"n": 6}, square_model, stage="test")
    assert result.ok and result.reasked and result.value.square == 36
    reask = provider.requests[1].messages
    assert reask[-2]["role"] == "assistant" and "could not be used" in reask[-1]["content"]
    assert "n: Input should be a valid integer" in reask[-1]["content"]
    assert client.runner.cache.count() == 2  # the re-ask reply, under both keys; never the bad one
    for key in (provider.requests[0].cache_key("scripted"), provider.requests[1].cache_key("scripted")):
        assert json.loads(client.runner.cache.get(key).text)["square"] == 36


def test_item_fails_with_reason_after_one_reask(prompts_dir: Path, square_model: Any) -> None:
    client, provider = _scripted_client(prompts_dir, _square_rule('{"wrong": 1}'))
    result = client.structured("square", {"n": 1}, square_model, stage="test")
    assert result.value is None and "after one re-ask" in (result.error or "")
    assert len(provider.requests) == 2 and client.runner.cache.count() == 0
    assert client.summary().total.errors == 2
    again = client.structured("square", {"n": 1}, square_model, stage="test")
    assert not again.ok and len(provider.requests) == 4, "failures are retried on rerun, not replayed"


def test_truncated_reply_is_rejected_not_half_accepted(prompts_dir: Path, square_model: Any) -> None:
    cut = ScriptRule("Compute item", '{"n": 3, "square": 9', times=1, finish_reason="length")
    client, provider = _scripted_client(prompts_dir, cut, _square_rule())
    result = client.structured("square", {"n": 3}, square_model, stage="test")
    assert result.ok and result.reasked
    assert "cut off" in provider.requests[1].messages[-1]["content"]


def test_repaired_reply_is_accepted(prompts_dir: Path, square_model: Any) -> None:
    fenced = _square_rule("```json\n{'n': 7, 'square': 49,}\n```")
    client, _ = _scripted_client(prompts_dir, fenced)
    result = client.structured("square", {"n": 7}, square_model, stage="test")
    assert result.ok and result.repaired and not result.reasked and result.value.square == 49


def test_cache_key_changes_with_prompt_version(
    prompts_dir: Path, square_model: Any, write_prompt: Callable[[Path, str], Path]
) -> None:
    client, provider = _scripted_client(prompts_dir, _square_rule())
    client.structured("square", {"n": 2}, square_model, stage="test")
    write_prompt(prompts_dir, "2")
    bumped, provider2 = _scripted_client(prompts_dir, _square_rule())
    bumped.runner.cache = client.runner.cache
    assert not bumped.structured("square", {"n": 2}, square_model, stage="test").usage.cached
    assert len(provider2.requests) == 1
    assert provider.requests[0].messages == provider2.requests[0].messages  # same text, new version


def test_budget_stops_before_exceeding(prompts_dir: Path, square_model: Any) -> None:
    client, provider = _scripted_client(prompts_dir, _square_rule(), max_output_tokens=50, max_tokens_budget=400)
    done = 0
    with pytest.raises(BudgetExceededError, match="max_tokens_budget = 400"):
        for n in range(100):
            client.structured("square", {"n": n}, square_model, stage="test")
            done += 1
    total = client.summary().total
    assert 0 < done < 100 and len(provider.requests) == done
    assert total.prompt_tokens + total.completion_tokens <= 400
    assert client.runner.budget.used <= 400


def test_estimate_mode_makes_no_http_calls(prompts_dir: Path, fast_cfg: Callable[..., LLMConfig]) -> None:
    with FakeOpenAIServer() as server:
        cfg = fast_cfg(
            server.base_url,
            prompts_dir=prompts_dir,
            price_prompt_per_1m=1.0,
            price_completion_per_1m=2.0,
            estimate_completion_tokens=100,
        )
        client = create_llm_client(cfg, estimate=True)
        for n in range(5):
            result = client.structured("square", {"n": n}, None, stage="index.extract")
            assert result.value is None and "estimate" in (result.error or "")
        chat = client.chat([{"role": "user", "content": "hello there"}], stage="query.generate")
        assert chat.estimated
        assert server.stats.requests == 0
    estimate = client.estimate()
    assert estimate is not None and estimate.calls == 6 and estimate.completion_tokens == 600
    assert estimate.cost_usd == pytest.approx((estimate.prompt_tokens * 1 + 600 * 2) / 1e6)
    summary = client.summary()
    assert summary.total.estimated_calls == 6 and set(summary.by_stage) == {"index.extract", "query.generate"}
    assert "LLM calls" in estimate.line()


def test_estimate_counts_cached_calls_as_free(prompts_dir: Path, square_model: Any) -> None:
    client, _ = _scripted_client(prompts_dir, _square_rule())
    client.structured("square", {"n": 1}, square_model, stage="test")
    estimating = create_llm_client(
        LLMConfig(provider="scripted", prompts_dir=prompts_dir), estimate=True, provider=ScriptedProvider()
    )
    estimating.runner.cache = client.runner.cache
    assert estimating.structured("square", {"n": 1}, square_model, stage="test").ok
    estimating.structured("square", {"n": 2}, square_model, stage="test")
    estimate = estimating.estimate()
    assert estimate is not None and estimate.calls == 1


def test_usage_counted_offline_when_api_sends_none(prompts_dir: Path, fast_cfg: Callable[..., LLMConfig]) -> None:
    server = FakeOpenAIServer(include_usage=False)
    with server:
        client = create_llm_client(fast_cfg(server.base_url))
        result = client.chat([{"role": "user", "content": "count these words please"}], stage="test")
    assert result.usage.source == "counted"
    assert result.usage.prompt_tokens >= 5 and result.usage.completion_tokens >= 5


def test_usage_from_api_block_is_the_larger_of_reported_and_counted(fast_cfg: Callable[..., LLMConfig]) -> None:
    """The server counts 3 words of prompt and 4 of reply; the local count (cl100k_base plus the chat overhead)
    is larger, so it is what is recorded. A figure only a little short of it is not called distrusted."""
    with FakeOpenAIServer() as server:
        client = create_llm_client(fast_cfg(server.base_url, price_prompt_per_1m=1e6))
        result = client.chat([{"role": "user", "content": "one two three"}], stage="test")
        counter = client.runner.counter()
    prompt = count_message_tokens(counter, [{"role": "user", "content": "one two three"}])
    assert result.usage.source == "api" and result.usage.prompt_tokens == prompt > 3
    assert result.usage.completion_tokens == counter.count("echo: one two three") > 4
    assert result.usage.cost_usd == pytest.approx(float(prompt))


def test_ledger_summaries_per_stage_and_run(prompts_dir: Path, square_model: Any) -> None:
    ledger = InMemoryLedger()
    for run in ("r1", "r2"):
        client = create_llm_client(
            LLMConfig(provider="scripted", prompts_dir=prompts_dir),
            run_id=run,
            provider=ScriptedProvider([_square_rule()]),
        )
        client.runner.ledger = ledger
        client.structured("square", {"n": 1}, square_model, stage="index.extract")
        client.chat([{"role": "user", "content": "Compute item 2 x"}], stage="query.generate")
    summary = ledger.summary()
    assert set(summary.by_run) == {"r1", "r2"} and summary.by_stage["index.extract"].calls == 2
    assert ledger.summary(run_id="r1").total.calls == 2
    assert any(line.startswith("total:") for line in summary.lines())
    assert ledger.records[0].usage_source == "counted" and ledger.records[0].prompt_name == "square"


def test_context_window_check_names_the_ollama_trap() -> None:
    check_context_window(None, 10_000, 1000)
    check_context_window(8192, 6000, 1000)
    with pytest.raises(ModelError, match=r"2048.*num_ctx") as err:
        check_context_window(2048, 3000, 512)
    assert "3512" in str(err.value) and "llm.context_window" in str(err.value)


def test_oversized_request_fails_before_sending(prompts_dir: Path) -> None:
    client, provider = _scripted_client(prompts_dir, ScriptRule(".", "ok"), context_window=256)
    with pytest.raises(ModelError, match="context_window"):
        client.chat([{"role": "user", "content": "word " * 400}], stage="test")
    assert provider.requests == []


def test_scripted_rules_times_and_default() -> None:
    provider = ScriptedProvider([ScriptRule("(?i)capital", "Paris", times=1)], default="dunno")
    client = create_llm_client(LLMConfig(provider="scripted", cache_enabled=False), provider=provider)
    ask = [{"role": "user", "content": "The Capital of France?"}]
    assert client.chat(ask, stage="t").text == "Paris"
    assert client.chat(ask, stage="t").text == "dunno"
    with pytest.raises(ProviderError, match="no rule"):
        create_llm_client(LLMConfig(provider="scripted")).chat(ask, stage="t")


def test_recording_replays_byte_for_byte(tmp_path: Path, fast_cfg: Callable[..., LLMConfig]) -> None:
    recording = tmp_path / "replay.jsonl"
    asks = [[{"role": "user", "content": f"question {i}"}] for i in range(3)]
    with FakeOpenAIServer() as server:
        from kgrag.models.llm import build_provider

        live = RecordingProvider(build_provider(fast_cfg(server.base_url)), recording)
        client = create_llm_client(fast_cfg(server.base_url), provider=live)
        originals = [client.chat(a, stage="t").text for a in asks]
    recording.write_text(recording.read_text() + json.dumps({"match": "other", "response": "rule!"}) + "\n")
    cfg = LLMConfig(provider="scripted", model="fake-model", providers={"scripted": {"file": recording}})
    replay = create_llm_client(cfg)
    assert [replay.chat(a, stage="t").text for a in asks] == originals
    assert replay.chat([{"role": "user", "content": "the other one"}], stage="t").text == "rule!"


def test_bad_replay_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json\n")
    with pytest.raises(ConfigError, match=r"bad\.jsonl:1"):
        create_llm_client(LLMConfig(provider="scripted", providers={"scripted": {"file": path}}))


def test_openai_provider_requires_a_model() -> None:
    with pytest.raises(ConfigError, match=r"llm\.model"):
        create_llm_client(LLMConfig(provider="openai"))


def test_json_mode_sends_response_format(prompts_dir: Path, square_model: Any) -> None:
    client, provider = _scripted_client(prompts_dir, _square_rule(), json_mode="json_schema")
    client.structured("square", {"n": 1}, square_model, stage="test")
    fmt = provider.requests[0].params["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"]["required"] == ["n", "square"]


def test_status_reports_hit_rate_from_the_workspace(prompts_dir: Path, store: Store, square_model: Any) -> None:
    empty = llm_status(store.llm_cache, store.llm_ledger)
    assert empty.calls == 0 and empty.last_run is None
    client, _ = _scripted_client(prompts_dir, _square_rule(), store=store)
    for _ in range(4):
        client.structured("square", {"n": 3}, square_model, stage="test")
    status = llm_status(store.llm_cache, store.llm_ledger)
    assert status.cache_entries == 1 and status.calls == 4 and status.hit_rate == pytest.approx(0.75)
    assert status.last_run == client.run_id and "hit rate 75%" in status.line()
