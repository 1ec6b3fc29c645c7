"""Over real HTTP against the fake OpenAI server: 30% injected faults change nothing in the result."""

from __future__ import annotations

import time
from typing import Any

from kgrag.config import LLMConfig
from kgrag.models.llm import create_llm_client
from kgrag.testing import ALL_FAULTS, FakeOpenAIServer, FaultPlan
from kgrag.testing.extraction_responder import RECOVERABLE, ExtractionResponder

SERVER_FAULT_RATE = 0.3
REPLY_FAULT_RATE = 0.15


def _config(base_url: str) -> LLMConfig:
    return LLMConfig(
        provider="openai",
        providers={"openai": {"base_url": base_url}},
        model="fake-model",
        timeout_s=0.5,
        max_retries=8,
        backoff_base_s=0.002,
        backoff_max_s=0.02,
        max_concurrency=8,
        # room for the stand-in's longest extraction replies (it ignores max_tokens): an injected cut reply
        # then reads as a fault to ask again, not as a reply too long for its unit, which would be split
        max_output_tokens=8000,
    )


def _run(kit: Any, server: FakeOpenAIServer, chunks: list[Any]) -> tuple[Any, Any, float]:
    client = create_llm_client(_config(server.base_url), counter=kit.counter)  # fresh in-memory cache
    extractor = kit.make_extractor(client, batch_units=32)
    started = time.perf_counter()
    result = kit.comparable(extractor.extract(chunks))
    return extractor, result, time.perf_counter() - started


def test_thirty_percent_faults_give_the_same_extraction_as_a_clean_run(kit: Any) -> None:
    chunks = kit.sample_chunks()
    clean_responder = ExtractionResponder()
    with FakeOpenAIServer(clean_responder.for_server) as server:
        clean_extractor, clean, clean_s = _run(kit, server, chunks)
        clean_requests = server.stats.chat_requests
    assert all(error is None for _, _, error in clean.values())

    responder = ExtractionResponder(random_faults=RECOVERABLE, rate=REPLY_FAULT_RATE, seed=11)
    faults = FaultPlan(rate=SERVER_FAULT_RATE, slow_s=0.6, retry_after_s=0.01, seed=5)
    with FakeOpenAIServer(responder.for_server, faults) as server:
        extractor, faulty, faulty_s = _run(kit, server, chunks)
        stats = server.stats
    summary = extractor.client.summary()
    print(
        f"\n[fault test] {len(chunks)} chunks in {extractor.stats.units} units; clean run: "
        f"{clean_requests} requests in {clean_s:.2f}s; faulty run: {stats.chat_requests} requests in "
        f"{faulty_s:.2f}s, server faults {dict(stats.faults)} ({sum(stats.faults.values())} = "
        f"{sum(stats.faults.values()) / stats.chat_requests:.0%} of requests), malformed replies "
        f"{dict(responder.malformed)}, client retries {summary.total.retries}, re-asks "
        f"{responder.calls['extract-reask'] + responder.calls['glean-reask']}, units asked again "
        f"{extractor.stats.retried_units}, gleaned units {extractor.stats.gleaned_units} "
        f"(clean run: {clean_extractor.stats.gleaned_units})"
    )
    assert set(stats.faults) == set(ALL_FAULTS)
    assert sum(stats.faults.values()) >= 0.2 * stats.chat_requests
    assert responder.malformed
    assert faulty == clean  # same entities and relations per chunk, no errors
