"""The HTTP provider over real HTTP against the fake server: faults, retries, limits, resume."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgrag.core.errors import ModelError
from kgrag.models.llm import LLMUnavailableError, create_llm_client
from kgrag.store import Store
from kgrag.testing import ALL_FAULTS, FakeOpenAIServer, FaultPlan

N_ITEMS = 200


def _correct(results: list[Any], count: int) -> set[int]:
    return {i for i, r in enumerate(results) if r.ok and r.value.n == i and r.value.square == i * i}


def test_batch_survives_30_percent_faults_of_every_kind(
    prompts_dir: Path, store: Store, fast_cfg: Callable[..., Any], square_model: Any, square_reply: Any
) -> None:
    faults = FaultPlan(rate=0.3, slow_s=0.3, retry_after_s=0.01, seed=7)
    items = [{"n": i} for i in range(N_ITEMS)]
    with FakeOpenAIServer(square_reply, faults) as server:
        cfg = fast_cfg(server.base_url, prompts_dir=prompts_dir)
        first = create_llm_client(cfg, store, run_id="pass-1")
        results = first.map_structured("square", items, square_model, stage="test.square")
        done = _correct(results, N_ITEMS)
        failed = [r for r in results if not r.ok]
        # Nothing wrong is ever accepted: each result is either correct or a failure with its reason.
        assert len(done) + len(failed) == N_ITEMS
        assert all(r.error and r.value is None for r in failed)
        assert len(done) >= N_ITEMS * 0.9
        assert set(server.stats.faults) == set(ALL_FAULTS)
        summary = first.summary()
        assert summary.total.retries > 0
        assert summary.by_stage["test.square"].calls >= N_ITEMS
        passes = 1
        while len(done) < N_ITEMS and passes < 4:  # a rerun resumes: only the failed items are sent again
            passes += 1
            client = create_llm_client(cfg, store, run_id=f"pass-{passes}")
            results = client.map_structured("square", items, square_model, stage="test.square")
            done = _correct(results, N_ITEMS)
            assert client.summary().total.cache_hits >= len(items) - len(failed)
        assert done == set(range(N_ITEMS))
    errors = ",".join(",".join(call.attempt_errors) for call in store.llm_ledger.calls())
    for label in ("429", "500", "timeout", "malformed", "connection"):
        assert label in errors, label


def test_total_outage_stops_clearly_and_rerun_resumes_from_cache(
    prompts_dir: Path, store: Store, fast_cfg: Callable[..., Any], square_model: Any, square_reply: Any
) -> None:
    healthy = 30
    faults = FaultPlan(rate=1.0, kinds=("server_error", "disconnect"), sequence=[None] * healthy)
    items = [{"n": i} for i in range(80)]
    with FakeOpenAIServer(square_reply, faults) as server:
        cfg = fast_cfg(server.base_url, prompts_dir=prompts_dir, max_retries=2, max_concurrency=1)
        client = create_llm_client(cfg, store, run_id="outage")
        with pytest.raises(LLMUnavailableError, match=r"after 3 attempts.*rerunning resumes"):
            client.map_structured("square", items, square_model, stage="test.square")
        assert store.llm_cache.count() == healthy
        server.set_faults(FaultPlan())
        server.reset_stats()
        rerun = create_llm_client(cfg, store, run_id="resume")
        results = rerun.map_structured("square", items, square_model, stage="test.square")
        assert _correct(results, 80) == set(range(80))
        assert rerun.summary().total.cache_hits == healthy
        assert server.stats.chat_requests == 80 - healthy
    outage = store.llm_ledger.summary(run_id="outage").total
    assert outage.errors == 1 and outage.attempts == healthy + 3


def test_total_outage_with_concurrency_stops_the_batch(
    prompts_dir: Path, fast_cfg: Callable[..., Any], square_model: Any, square_reply: Any
) -> None:
    faults = FaultPlan(rate=1.0, kinds=("server_error", "rate_limit"), retry_after_s=0.001)
    with FakeOpenAIServer(square_reply, faults) as server:
        client = create_llm_client(fast_cfg(server.base_url, prompts_dir=prompts_dir, max_retries=2))
        with pytest.raises(LLMUnavailableError):
            client.map_structured("square", [{"n": i} for i in range(200)], square_model, stage="test")
        assert server.stats.chat_requests < 200, "items not yet started are cancelled"


def test_retry_after_is_honoured(
    prompts_dir: Path, fast_cfg: Callable[..., Any], square_model: Any, square_reply: Any
) -> None:
    faults = FaultPlan(sequence=["rate_limit"], retry_after_s=1.0)
    with FakeOpenAIServer(square_reply, faults) as server:
        client = create_llm_client(fast_cfg(server.base_url, prompts_dir=prompts_dir))
        started = time.monotonic()
        result = client.structured("square", {"n": 3}, square_model, stage="test")
        elapsed = time.monotonic() - started
        assert result.ok and result.usage.attempts == 2
        assert elapsed >= 0.95, "the 1 s Retry-After must win over the 2 ms backoff"


def test_slow_responses_time_out_and_are_retried(
    prompts_dir: Path, fast_cfg: Callable[..., Any], square_model: Any, square_reply: Any
) -> None:
    faults = FaultPlan(sequence=["slow", "slow"], slow_s=0.4)
    with FakeOpenAIServer(square_reply, faults) as server:
        client = create_llm_client(fast_cfg(server.base_url, prompts_dir=prompts_dir))
        result = client.structured("square", {"n": 5}, square_model, stage="test")
        assert result.ok and result.value is not None and result.value.square == 25
        assert result.usage.attempts == 3


def test_concurrency_limit_is_respected_server_side(
    prompts_dir: Path, fast_cfg: Callable[..., Any], square_model: Any, square_reply: Any
) -> None:
    with FakeOpenAIServer(square_reply, latency_s=0.03) as server:
        client = create_llm_client(fast_cfg(server.base_url, prompts_dir=prompts_dir, max_concurrency=3))
        results = client.map_structured("square", [{"n": i} for i in range(30)], square_model, stage="test")
        assert all(r.ok for r in results)
        assert server.stats.max_in_flight == 3
        server.reset_stats()  # direct calls from many threads share the same limit

        def call(i: int) -> None:
            client.chat([{"role": "user", "content": f"item {i} x"}], stage="test")

        threads = [threading.Thread(target=call, args=(i,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert server.stats.chat_requests == 12 and server.stats.max_in_flight <= 3


def test_request_rate_limit_is_respected_server_side(
    prompts_dir: Path, fast_cfg: Callable[..., Any], square_model: Any, square_reply: Any
) -> None:
    per_second = 20  # requests_per_minute = 1200; bursts of at most one second's worth
    with FakeOpenAIServer(square_reply) as server:
        cfg = fast_cfg(server.base_url, prompts_dir=prompts_dir, requests_per_minute=per_second * 60)
        client = create_llm_client(cfg)
        started = time.monotonic()
        results = client.map_structured("square", [{"n": i} for i in range(50)], square_model, stage="test")
        elapsed = time.monotonic() - started
        assert all(r.ok for r in results)
        assert elapsed >= (50 - per_second) / per_second * 0.9
        assert server.stats.max_in_window(0.5) <= per_second + per_second / 2 + 2


def test_non_retryable_errors_stop_at_once(fast_cfg: Callable[..., Any], square_reply: Any) -> None:
    with FakeOpenAIServer(square_reply) as server:
        client = create_llm_client(fast_cfg(server.base_url.removesuffix("/v1") + "/wrong"))
        with pytest.raises(ModelError, match=r"HTTP 404.*llm\.providers\.openai\.base_url"):
            client.chat([{"role": "user", "content": "item 1 x"}], stage="test")
        assert server.stats.requests == 1


def test_connection_refused_is_retried_then_reported(fast_cfg: Callable[..., Any]) -> None:
    client = create_llm_client(fast_cfg("http://127.0.0.1:9/v1", max_retries=1))
    with pytest.raises(LLMUnavailableError, match="connection") as refused:
        client.chat([{"role": "user", "content": "hello"}], stage="test")
    assert client.summary().total.attempts == 2
    # the URL tried and what to check, not advice to wait longer for a server nobody reached
    message = str(refused.value)
    assert "nothing answers at http://127.0.0.1:9/v1" in message and "base_url" in message
    assert "max_retries" not in message and "overloaded" not in message
