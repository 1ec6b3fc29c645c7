"""Store contract, Batch API bookkeeping: the batch records a killed ``kgrag index --batch`` resumes from
persist in the meta table of every backend, and the ledger prices batch calls at the batch share."""

from __future__ import annotations

import dataclasses

import pytest
from tests.store.backends import StoreMaker
from tests.store.test_store_llm import _record

from kgrag.core.llm_types import ChatRequest, Prices, PromptRef
from kgrag.models.llm.batch_book import BatchBook, BatchRecord
from kgrag.store import InMemoryLedger, Store, UsageLedgerRepository

REQUEST = ChatRequest(
    ({"role": "system", "content": "Extract."}, {"role": "user", "content": "Text:\nÅsa Lind met Rui — 2024."}),
    "gpt-4o-mini",
    {"temperature": 0.0, "max_tokens": 512, "response_format": {"type": "json_object"}},
    PromptRef("extract_graph", "7"),
)


def test_records_and_their_requests_survive_reopening(make_persistent_store: StoreMaker) -> None:
    store = make_persistent_store()
    book = BatchBook(store.meta)
    first = BatchRecord.new(1, ["k1", "k2"])
    book.save_requests(first, {"k1": ("index.extract", REQUEST), "k2": ("index.glean", REQUEST)})
    first.input_file_id = "file-1"
    book.save(first)
    second = BatchRecord.new(2, ["k3"])
    book.save_requests(second, {"k3": ("index.summarize", REQUEST)})
    second.batch_id, second.status = "batch_2", "pending"
    book.save(second)
    book.finish(first)
    store.close()

    reopened = BatchBook(make_persistent_store().meta)
    assert [(r.id, r.status, r.batch_id) for r in reopened.unfinished()] == [(second.id, "pending", "batch_2")]
    assert reopened.attempted() == {"k1", "k2"}
    assert reopened.requests(first) == {}  # a finished batch's requests are dropped
    stage, request = reopened.requests(second)["k3"]
    assert stage == "index.summarize" and request == REQUEST
    assert request.cache_key("openai") == REQUEST.cache_key("openai")  # the key its reply is cached under
    reopened.forget_finished()
    assert [r.id for r in reopened.records()] == [second.id]


def _exercise_batch_prices(ledger: UsageLedgerRepository) -> None:
    ledger.record(_record("r1", "index.extract", tokens=100))  # live: 100 prompt + 50 completion
    ledger.record(dataclasses.replace(_record("r1", "index.extract", tokens=100), usage_source="batch", attempts=1))
    ledger.record(_record("r1", "index.extract", hit=True, tokens=100))  # a cache hit costs nothing
    summary = ledger.summary(prices=Prices(1_000_000.0, 2_000_000.0, batch_share=0.5))
    stage = summary.by_stage["index.extract"]
    assert stage.calls == 3 and stage.batch_calls == 1 and stage.cache_hits == 1
    assert stage.cost_usd == pytest.approx((100 + 50 * 2) * 1.5)  # the live call in full, the batch one at half
    assert "1 batch" in summary.lines()[0]
    assert summary.by_run["r1"].cost_usd == pytest.approx(stage.cost_usd)


def test_the_ledger_prices_batch_calls_at_the_batch_share(store: Store) -> None:
    _exercise_batch_prices(store.llm_ledger)


def test_the_in_memory_ledger_prices_batch_calls_the_same() -> None:
    _exercise_batch_prices(InMemoryLedger())
