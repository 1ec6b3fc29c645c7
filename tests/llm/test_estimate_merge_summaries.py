"""Summaries after merges: measured per merge confirmation on the workspace's own earlier resolutions (the
summary calls right after a run of confirmation calls), the per-name rate only without such history, and
none predicted when LLM confirmation is on and no confirmation is counted."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from tests.llm.test_estimate_structure import NEVER

from kgrag.config import KgragConfig
from kgrag.core.denoise_records import DenoiseRun
from kgrag.core.llm_types import ChatRequest, Message, Prices, PromptRef
from kgrag.core.llm_usage import CallRecord
from kgrag.indexing.estimate_assumptions import _stage_predictions, calibrate_assumptions
from kgrag.indexing.estimate_merges import merge_summaries
from kgrag.models.llm.estimate import EstimatingProvider
from kgrag.models.llm.estimate_assumed import AFTER_MERGES, EstimateAssumptions, MergeSummaries, StagePrediction
from kgrag.models.llm.tokens import default_token_counter
from kgrag.store.base import Store
from kgrag.store.memory import InMemoryLedger

RESOLVE, SUMMARIZE = "index.resolve", "index.summarize"


def _call(stage: str, *, run: str = "r1", prompt: int = 100, completion: int = 20, **flags: object) -> CallRecord:
    model = str(flags.get("model", "m"))
    hit, estimated = bool(flags.get("cache_hit", False)), bool(flags.get("estimated", False))
    return CallRecord(run, stage, "openai", model, prompt, completion, "api", 1.0, hit, 1, estimated=estimated)


def test_only_the_summaries_right_after_confirmations_are_counted_per_confirmation_sent() -> None:
    run = [
        _call("index.extract"),
        _call(SUMMARIZE),  # the extraction's own summary: before any confirmation
        *[_call(RESOLVE) for _ in range(3)],
        _call(RESOLVE, cache_hit=True),  # answered from the cache: part of the resolution, not sent
        _call(SUMMARIZE, prompt=500, completion=200),
        _call(SUMMARIZE, cache_hit=True),
        _call("index.reflect"),
        _call(SUMMARIZE),  # after another stage: not the resolution's
    ]
    estimated = [_call(RESOLVE, run="e", estimated=True), _call(SUMMARIZE, run="e", estimated=True)]
    other = [_call(RESOLVE, run="o", model="x"), _call(SUMMARIZE, run="o", model="x")]
    assert merge_summaries([run, estimated, other], "m") == MergeSummaries(3, 1, 500, 200)
    measured = merge_summaries([run], "m")
    assert measured is not None and measured.rate == 1 / 3
    assert merge_summaries([run[:2], estimated], "m") is None  # no confirmation sent: nothing measured


def test_the_measured_rate_follows_the_counted_confirmations_and_their_re_asks() -> None:
    assumptions = EstimateAssumptions(
        replies=(("confirm_merge", 20.0, 0.5),), merge_summaries=MergeSummaries(10, 2, 400, 100)
    )
    provider = EstimatingProvider(NEVER, default_token_counter(), assumptions)
    for n in range(10):
        provider.complete(_request("confirm_merge", f"1. A{n} (concept):\n2. B{n} (concept):"))
    predicted = " ".join(provider.report(Prices()).predicted)
    assert "confirm_merge re-asks 5 calls" in predicted
    assert f"{AFTER_MERGES} 3 calls, 1200 prompt + 300 completion tokens" in predicted  # (10 + 5) × 0.2


def test_with_llm_confirmation_no_counted_confirmation_means_no_summary_after_merges() -> None:
    stage = StagePrediction(AFTER_MERGES, 0.5, 500, 300, "denoise.resolve", "confirm_merge")
    provider = EstimatingProvider(NEVER, default_token_counter(), EstimateAssumptions(stages=(stage,)))
    provider.complete(_request("extract_graph", "Extract.\nText:\nAspirin and Ibuprofen treat Pain and Fever."))
    assert f"{AFTER_MERGES} 0 calls" in " ".join(provider.report(Prices()).predicted)
    provider.complete(_request("confirm_merge", "1. Aspirin (concept):\n2. aspirin (concept):"))
    assert f"{AFTER_MERGES} 2 calls" in " ".join(provider.report(Prices()).predicted)  # 4 names × 0.5
    unconfirmed = _stage_predictions(KgragConfig(), ["resolve"])  # merges without confirmation: per name
    assert [s.requires for s in unconfirmed] == [""]


def test_the_ledger_rate_replaces_the_per_name_rate_only_after_an_applied_resolution() -> None:
    config = KgragConfig.model_validate({"denoise": {"llm_confirm": True}})
    stages = _stage_predictions(config, ["extract", "resolve"])
    ledger = InMemoryLedger()
    for record in [_call(RESOLVE), _call(RESOLVE), _call(SUMMARIZE)]:
        ledger.record(record)
    probed = _store(ledger, [])  # confirmations without a resolution applied: a probe's, they merge nothing
    kept = calibrate_assumptions(EstimateAssumptions(stages=stages), probed, "m")
    assert kept.merge_summaries is None and [s.stage for s in kept.stages] == [AFTER_MERGES]
    resolved = _store(ledger, [DenoiseRun("dn-1", "2026-01-01T00:00:00", "applied", "f")])
    measured = calibrate_assumptions(EstimateAssumptions(stages=stages), resolved, "m")
    assert measured.merge_summaries == MergeSummaries(2, 1, 100, 20) and measured.stages == ()
    assert any("summaries after merges 0.500 per merge confirmation" in line for line in measured.lines())


def _store(ledger: InMemoryLedger, runs: list[DenoiseRun]) -> Store:
    return cast(Store, SimpleNamespace(llm_ledger=ledger, denoise=SimpleNamespace(runs=lambda: runs)))


def _request(prompt: str, user: str) -> ChatRequest:
    messages = cast(tuple[Message, ...], ({"role": "system", "content": "Judge."}, {"role": "user", "content": user}))
    return ChatRequest(messages, "m", prompt=PromptRef(prompt, "1"))
