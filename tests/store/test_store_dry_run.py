"""Store contract, dry runs: the real code path runs and reads its own writes, then everything is gone
(content, nested transactions, LLM cache and ledger), without copying anything."""

from __future__ import annotations

import numpy as np
import pytest
from tests.helpers import add_document

from kgrag.core.llm_types import ChatRequest
from kgrag.core.llm_usage import CachedResponse, CallRecord
from kgrag.documents.records import content_hash
from kgrag.store import Store

REQUEST = ChatRequest(({"role": "user", "content": "hi"},), "m")
CALL = CallRecord("r", "index.extract", "openai", "m", 10, 5, "api", 1.0, False, 1)


def _state(store: Store) -> tuple[object, ...]:
    return (
        store.documents.count_by_status(),
        store.chunks.count(),
        store.vectors.count("m"),
        store.meta.get("k"),
        store.llm_cache.count(),
        store.llm_ledger.summary().total.calls,
    )


def test_everything_written_in_a_dry_run_is_rolled_back(store: Store) -> None:
    add_document(store, "kept", ["kept text"])
    store.llm_cache.put("old", REQUEST, CachedResponse("cached", "stop", 1, 1))
    before = _state(store)
    with store.dry_run():
        add_document(store, "d1", ["kestrel ingests telemetry"])
        with store.transaction():
            store.meta.set("k", "v")
            with pytest.raises(ValueError), store.transaction():  # a failed savepoint inside still rolls back
                store.meta.set("k", "inner")
                raise ValueError
        store.vectors.put("m", [(content_hash("kestrel ingests telemetry"), np.ones(4, dtype=np.float32))])
        store.llm_cache.put("new", REQUEST, CachedResponse("x", "stop", 1, 1))
        store.llm_ledger.record(CALL)
        # reads inside see the dry run's own writes
        assert store.documents.get("d1") is not None and store.meta.get("k") == "v"
        assert [h.id for h in store.chunks.search_bm25("kestrel", 5)] == ["d1-c0"]
        assert [h.id for h in store.vectors.search("m", np.ones(4, dtype=np.float32), 5)] == ["d1-c0"]
        assert store.llm_cache.get("old") is not None and store.llm_cache.count() == 2
        assert store.llm_ledger.summary().total.calls == 1
    assert _state(store) == before
    assert store.documents.get("d1") is None and store.chunks.search_bm25("kestrel", 5) == []
    assert store.vectors.search("m", np.ones(4, dtype=np.float32), 5) == []  # no stale hot matrix


def test_a_failing_dry_run_also_rolls_back_and_the_store_stays_usable(store: Store) -> None:
    before = _state(store)
    with pytest.raises(RuntimeError), store.dry_run():
        add_document(store, "d1", ["text"])
        raise RuntimeError
    assert _state(store) == before
    add_document(store, "d2", ["text"])
    assert store.chunks.count() == 1


def test_generation_moves_on_after_a_dry_run(store: Store) -> None:
    before = store.generation()
    with store.dry_run():
        add_document(store, "d1", ["text"])
    assert store.generation() != before  # whatever was loaded from the dry-run state must reload


def test_dry_run_cannot_start_inside_a_transaction(store: Store) -> None:
    with pytest.raises(RuntimeError, match="dry_run"), store.transaction(), store.dry_run():
        pass
