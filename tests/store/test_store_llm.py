"""Store contract, LLM bookkeeping: the response cache and the usage ledger behave like the in-memory
fakes, persist with the store, and never advance the content generation."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tests.store.backends import StoreMaker

from kgrag.core.llm_types import ChatRequest, Prices, PromptRef
from kgrag.core.llm_usage import CachedResponse, CallLink, CallRecord
from kgrag.store import InMemoryLedger, InMemoryResponseCache, LLMCacheRepository, Store, UsageLedgerRepository

REQUEST = ChatRequest(({"role": "user", "content": "hi"},), "m", prompt=PromptRef("answer", "2"))


def _record(run: str, stage: str, *, hit: bool = False, error: str | None = None, tokens: int = 10) -> CallRecord:
    return CallRecord(
        run_id=run,
        stage=stage,
        provider="openai",
        model="m",
        prompt_tokens=tokens,
        completion_tokens=tokens // 2,
        usage_source="cache" if hit else "api",
        latency_ms=2.0,
        cache_hit=hit,
        attempts=0 if hit else 2,
        prompt_name="answer",
        prompt_version="2",
        attempt_errors=() if hit else ("429",),
        error=error,
        created_at=1.5,
    )


def _exercise_cache(cache: LLMCacheRepository) -> None:
    assert cache.get("k1") is None and cache.count() == 0
    cache.put("k1", REQUEST, CachedResponse("hello", "stop", 7, 3))
    cache.put("k2", REQUEST, CachedResponse("other", None, 1, 1))
    cache.put("k1", REQUEST, CachedResponse("hello again", "length", 8, 4))  # replaces
    assert cache.get("k1") == CachedResponse("hello again", "length", 8, 4)
    assert cache.get("k2") == CachedResponse("other", None, 1, 1)
    assert cache.count() == 2
    cache.delete("k1")
    cache.delete("missing")
    assert cache.get("k1") is None and cache.count() == 1
    assert cache.clear() == 1 and cache.count() == 0 and cache.get("k2") is None


def _exercise_ledger(ledger: UsageLedgerRepository) -> None:
    assert ledger.summary().total.calls == 0 and ledger.run_ids() == [] and ledger.calls() == []
    records = [
        _record("r1", "index.extract"),
        _record("r1", "index.extract", hit=True),
        _record("r2", "query.generate", error="boom", tokens=100),
        replace(_record("r2", "index.extract"), unit_key="0123abcd", call_role="half"),  # a linked row
    ]
    for rec in records:
        ledger.record(rec)
    assert ledger.run_ids() == ["r1", "r2"]
    assert ledger.calls() == records and ledger.calls("r2") == records[2:]
    assert ledger.calls("r2")[-1].link == CallLink("0123abcd", "half") and records[0].link is None
    summary = ledger.summary(prices=Prices(1_000_000.0, 2_000_000.0))
    assert summary.total.calls == 4 and summary.total.cache_hits == 1 and summary.total.errors == 1
    assert summary.total.prompt_tokens == 130 and summary.total.billed_prompt_tokens == 120
    assert summary.total.cost_usd == pytest.approx(120 * 1.0 + 60 * 2.0)
    assert summary.by_stage["index.extract"].calls == 3 and summary.by_run["r2"].errors == 1
    assert summary.total.retries == 3  # 6 attempts for the 3 calls that reached the provider
    only = ledger.summary(run_id="r1")
    assert only.total.calls == 2 and set(only.by_run) == {"r1"} and only.total.cost_usd == 0.0


def test_cache_contract(store: Store) -> None:
    _exercise_cache(store.llm_cache)


def test_ledger_contract(store: Store) -> None:
    _exercise_ledger(store.llm_ledger)


def test_in_memory_fakes_keep_the_same_contract() -> None:
    _exercise_cache(InMemoryResponseCache())
    _exercise_ledger(InMemoryLedger())


def test_bookkeeping_does_not_advance_the_generation(store: Store) -> None:
    before = store.generation()
    store.llm_cache.put("k", REQUEST, CachedResponse("x", "stop", 1, 1))
    store.llm_ledger.record(_record("r", "s"))
    store.llm_cache.delete("k")
    assert store.generation() == before


def test_bookkeeping_written_inside_a_failed_transaction_is_rolled_back(store: Store) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        store.llm_cache.put("k", REQUEST, CachedResponse("x", "stop", 1, 1))
        store.llm_ledger.record(_record("r", "s"))
        raise RuntimeError
    assert store.llm_cache.count() == 0 and store.llm_ledger.calls() == []


def test_cache_and_ledger_survive_reopening(make_persistent_store: StoreMaker) -> None:
    store = make_persistent_store()
    store.llm_cache.put("k", REQUEST, CachedResponse("x", "stop", 1, 1))
    store.llm_ledger.record(_record("r", "s"))
    store.close()
    again = make_persistent_store()
    assert again.llm_cache.get("k") == CachedResponse("x", "stop", 1, 1)
    assert again.llm_ledger.calls() == [_record("r", "s")]
