"""Failures never drop chunks: a failed unit yields error extractions; a stopped run marks the rest."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from kgrag.config import LLMConfig
from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.models.llm import ProviderError, create_llm_client
from kgrag.testing.extraction_responder import ExtractionResponder

FAST = {"max_retries": 2, "backoff_base_s": 0.001, "backoff_max_s": 0.002}


class _Provider:
    """Answers through a responder for the first ``healthy`` requests, then raises ``error``."""

    name = "flaky"
    available = True

    def __init__(self, responder: ExtractionResponder, healthy: int, error: ProviderError) -> None:
        self.responder, self.healthy, self.error = responder, healthy, error
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self.calls += 1
            if self.calls > self.healthy:
                raise self.error
        return ChatResponse(self.responder.for_scripted(request))

    def close(self) -> None:
        return None


@pytest.fixture
def chunks(kit: Any) -> list[Any]:
    return kit.sample_chunks(limit=4)


def _client(kit: Any, provider: Any, **overrides: Any) -> Any:
    cfg = LLMConfig(provider="scripted", max_concurrency=1, **{**FAST, **overrides})
    return create_llm_client(cfg, provider=provider, counter=kit.counter)


def test_a_unit_that_stays_broken_gives_error_extractions_for_its_chunks(kit: Any, chunks: list[Any]) -> None:
    marker = chunks[8].text[:40]
    responder = ExtractionResponder(fail_markers=[marker])
    extractor, extractions = kit.run_extraction(chunks, responder)
    assert [x.chunk_id for x in extractions] == [c.id for c in chunks]
    broken = [x for x in extractions if x.error]
    assert chunks[8].id in {x.chunk_id for x in broken}
    assert all(not x.entities and not x.relations for x in broken)
    assert all("LLM extraction failed" in (x.error or "") for x in broken)
    assert all(x.entities for x in extractions if not x.error)
    assert extractor.stats.failed_units == 1
    assert extractor.stats.retried_units == 1  # one last, different try before giving up
    assert responder.calls["extract-reask"] == 1  # the re-ask quoting the error, once
    # at most three calls for the failing unit: the request, the re-ask, one fresh try at another temperature
    failing = [r for r in extractor.client.runner.provider.requests if marker in r.messages[-1]["content"]]
    assert len(failing) <= 3
    temperatures = [r.params.get("temperature") for r in failing]
    assert len(set(map(str, temperatures))) > 1  # never the identical request again


def test_an_endpoint_that_goes_down_fails_the_rest_with_the_reason(kit: Any, chunks: list[Any]) -> None:
    provider = _Provider(ExtractionResponder(), healthy=3, error=ProviderError("HTTP 503", retryable=True, status=503))
    extractor = kit.make_extractor(_client(kit, provider), batch_units=1)
    extractions = list(extractor.extract(chunks))
    assert [x.chunk_id for x in extractions] == [c.id for c in chunks]
    good = [x for x in extractions if not x.error]
    bad = [x for x in extractions if x.error]
    assert good and bad
    assert all("LLMUnavailableError" in (x.error or "") for x in bad)
    assert extractions.index(bad[0]) == len(good)  # finished units first, then everything after the stop
    assert provider.calls == 3 + 1 + FAST["max_retries"]  # stopped at once: no calls for later units
    assert extractor.stats.failed_units == extractor.stats.units - 3


def test_a_refused_request_stops_the_run_without_retries(kit: Any, chunks: list[Any]) -> None:
    provider = _Provider(
        ExtractionResponder(), healthy=0, error=ProviderError("HTTP 401: bad key", retryable=False, status=401)
    )
    extractions = list(kit.make_extractor(_client(kit, provider)).extract(chunks))
    assert len(extractions) == len(chunks)
    assert all("bad key" in (x.error or "") for x in extractions)
    assert provider.calls == 1


def test_a_spent_token_budget_stops_cleanly(kit: Any, chunks: list[Any]) -> None:
    responder = ExtractionResponder()
    client = kit.scripted_client(responder, max_tokens_budget=12_000, max_output_tokens=1024)
    extractor = kit.make_extractor(client, batch_units=2)
    extractions = list(extractor.extract(chunks))
    assert len(extractions) == len(chunks)
    failed = [x for x in extractions if x.error]
    assert failed and len(failed) < len(chunks)
    assert all("BudgetExceededError" in (x.error or "") for x in failed)


def test_estimate_mode_counts_one_call_per_unit_and_sends_nothing(kit: Any, chunks: list[Any]) -> None:
    responder = ExtractionResponder()
    cfg = LLMConfig(provider="scripted")
    client = create_llm_client(cfg, provider=responder.provider(), counter=kit.counter, estimate=True)
    extractor = kit.make_extractor(client)
    extractions = list(extractor.extract(chunks))
    # nothing was sent, so nothing failed (an estimate must not announce failures, #8); the entities are the
    # LLM-free stand-in graph the later stages are priced on (kgrag.graph.extract.structural)
    assert len(extractions) == len(chunks) and not any(x.error for x in extractions)
    assert all(e.type == "concept" and not e.description for x in extractions for e in x.entities)
    assert extractor.stats.failed_units == 0
    estimate = client.estimate()
    assert estimate is not None and estimate.calls == extractor.stats.units
    assert not responder.calls
