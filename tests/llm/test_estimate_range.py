"""The estimate's range (re-asks and retries at the ends of their interval) and the measured description
lengths the denoising prompts carry."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest
from tests.conftest import MEDICAL as MEDICAL_DIR
from tests.llm.test_estimate_structure import NEVER

from kgrag.core.llm_types import ChatRequest, Message, PromptRef
from kgrag.core.llm_usage import CallRecord
from kgrag.models.llm.estimate import EstimatingProvider
from kgrag.models.llm.estimate_assumed import EstimateAssumptions
from kgrag.models.llm.estimate_range import (
    MAX_FOLLOW_UPS,
    FailureSample,
    extraction_rates,
    failure_interval,
    reask_rates,
    reply_size_factors,
)
from kgrag.models.llm.reply_stats import measure_replies, samples_by_prompt
from kgrag.models.llm.tokens import default_token_counter

MEDICAL = MEDICAL_DIR / "corpus.json"


def test_two_clean_replies_leave_a_wide_interval_and_many_a_narrow_one() -> None:
    low, high = failure_interval(0, 2)
    assert low == 0.0 and high > 0.4  # two clean replies cannot rule out a model failing one reply in three
    assert failure_interval(0, 60)[1] < 0.05
    low, high = failure_interval(6, 20)
    assert low < 6 / 20 < high
    assert failure_interval(0, 0) == (0.0, pytest.approx(1.0, abs=0.01))  # nothing measured: anything goes


def test_the_runs_own_share_is_wider_on_few_calls_and_the_models_on_many() -> None:
    # one cut in eight where the model cuts one in four: the run draws its own replies
    model_low, model_high = failure_interval(6, 24)
    run_low, run_high = failure_interval(6, 24, new=8)
    assert run_low <= 1 / 8 < model_low and run_high > model_high
    assert all(share * 8 == round(share * 8) for share in (run_low, run_high))  # whole calls of the eight
    many = failure_interval(6, 24, new=100_000)
    assert many == pytest.approx((model_low, model_high), abs=0.01)  # a long run shows the model's own share
    assert failure_interval(0, 24, new=8)[0] == 0.0 and failure_interval(24, 24, new=8)[1] == 1.0
    assert extraction_rates(FailureSample(24, 6, 8.0), new=8)[0] < extraction_rates(FailureSample(24, 6, 8.0))[0]


def test_extraction_rates_are_bounded_by_the_calls_a_unit_can_make() -> None:
    assert extraction_rates(FailureSample()) == (0.0, pytest.approx(MAX_FOLLOW_UPS))
    low, high = extraction_rates(FailureSample(calls=40, failed=4, follow_ups=4.0))
    assert 0 < low < 4 / 36 < high < 0.3
    assert reask_rates(FailureSample(calls=3, failed=3, follow_ups=3.0))[1] == 1.0


def _record(stage: str, prompt: str, error: str | None = None) -> CallRecord:
    return CallRecord("r", stage, "openai", "m", 100, 50, "api", 1.0, False, 1, prompt_name=prompt, error=error)


def test_the_ledger_gives_the_samples_the_range_rests_on() -> None:
    records = [_record("index.extract", "extract_graph", "invalid JSON"), _record("index.extract", "extract_graph")]
    records += [_record("index.resolve", "confirm_merge", "invalid"), _record("index.resolve", "confirm_merge")]
    stats = measure_replies(records, model="m", stage="index.extract")
    assert stats is not None and stats.sample() == FailureSample(2, 1, 1.0)
    samples = samples_by_prompt(records, model="m", skip={"extract_graph"})
    assert samples == (("confirm_merge", FailureSample(2, 1, 1.0)),)


def test_the_reply_size_interval_is_wide_on_two_replies_and_absent_on_one() -> None:
    from scipy.stats import t

    low, high = reply_size_factors(100.0, 20.0, 2)
    half = t.ppf(0.95, 1) * 20.0 / 2**0.5 / 100.0  # Student t, one degree of freedom
    assert (low, high) == (pytest.approx(max(0.0, 1 - half)), pytest.approx(1 + half))
    wide, narrow = reply_size_factors(100.0, 20.0, 3), reply_size_factors(100.0, 20.0, 30)
    assert wide[1] - wide[0] > narrow[1] - narrow[0] and narrow[0] > 0.9
    assert reply_size_factors(100.0, 20.0, 1) == (1.0, 1.0)  # one reply: its spread is unknown
    assert reply_size_factors(100.0, 0.0, 5) == (1.0, 1.0)


def test_the_ledger_measures_the_spread_of_the_replies_that_did_not_loop() -> None:
    sizes = [(120, "api"), (80, "api"), (400, "loop")]
    records = [
        CallRecord("r", "index.extract", "openai", "m", 100, c, src, 1.0, False, 1, prompt_name="extract_graph")
        for c, src in sizes
    ]
    stats = measure_replies(records, model="m", stage="index.extract")
    assert stats is not None and stats.unlooped_sd == pytest.approx(28.2843, abs=1e-3)  # stdev of 120 and 80
    assert stats.unlooped_completion == pytest.approx(100.0)


def _request(prompt: str, user: str, max_tokens: int | None = None) -> ChatRequest:
    messages = cast(tuple[Message, ...], ({"role": "system", "content": "Judge."}, {"role": "user", "content": user}))
    params: dict[str, object] = {"max_tokens": max_tokens} if max_tokens else {}
    return ChatRequest(messages, "m", params=params, prompt=PromptRef(prompt, "1"))  # type: ignore[arg-type]


def test_quoted_empty_descriptions_are_priced_at_the_measured_length() -> None:
    counter = default_token_counter()
    lines = "1. Aspirin (concept): \n2. aspirin (concept): "
    plain = EstimatingProvider(NEVER, counter, EstimateAssumptions()).complete(_request("confirm_merge", lines))
    measured = EstimateAssumptions(entity_description=30.0, relation_description=50.0)
    padded = EstimatingProvider(NEVER, counter, measured).complete(_request("confirm_merge", lines))
    assert (padded.prompt_tokens or 0) == (plain.prompt_tokens or 0) + 60
    triples = "1. Aspirin | treats | Fever: \n2. Fever | worries | Parents: a described one"
    base = EstimatingProvider(NEVER, counter, EstimateAssumptions()).complete(_request("reflect_triples", triples))
    more = EstimatingProvider(NEVER, counter, measured).complete(_request("reflect_triples", triples))
    assert (more.prompt_tokens or 0) == (base.prompt_tokens or 0) + 50  # the described line is not padded


def test_the_high_end_lets_every_follow_up_run_to_max_tokens() -> None:
    from kgrag.core.llm_types import Prices

    counter = default_token_counter()
    assumptions = EstimateAssumptions(completion_per_name=10.0, extract_sample=FailureSample(2, 0, 0.0))
    provider = EstimatingProvider(NEVER, counter, assumptions)
    for text in ("Aspirin treats Fever.", "Ibuprofen relieves Pain."):
        provider.complete(_request("extract_graph", f"Text:\n{text}", max_tokens=1000))
    estimate = provider.report(Prices(1.0, 1.0))
    assert estimate.low is not None and estimate.high is not None
    assert (estimate.low.calls, estimate.calls) == (2, 2)  # nothing failed: no follow-up at the point or low end
    assert estimate.high.calls == 2 + round(2 * MAX_FOLLOW_UPS)
    assert estimate.high.completion_tokens == estimate.completion_tokens + 4 * 1000
    assert estimate.range_line() is not None and "2–6 calls" in (estimate.range_line() or "")
    spread = EstimatingProvider(NEVER, counter, replace(assumptions, reply_size=(0.5, 1.5)))
    for text in ("Aspirin treats Fever.", "Ibuprofen relieves Pain."):
        spread.complete(_request("extract_graph", f"Text:\n{text}", max_tokens=1000))
    wider = spread.report(Prices(1.0, 1.0))
    assert wider.completion_tokens == estimate.completion_tokens  # the point does not move
    first_passes = estimate.completion_tokens
    assert wider.low is not None and wider.high is not None
    assert wider.low.completion_tokens == estimate.low.completion_tokens - round(0.5 * first_passes)
    assert wider.high.completion_tokens == estimate.high.completion_tokens + round(0.5 * first_passes)


@pytest.mark.slow
@pytest.mark.skipif(not MEDICAL.exists(), reason="the shared Medical corpus is not present")
def test_a_model_failing_replies_the_probe_did_not_see_falls_inside_the_range(tmp_path: Path) -> None:
    from kgrag.testing.estimate_check import compare, medical_slices
    from kgrag.testing.extraction_responder import ExtractionResponder

    (target,) = medical_slices(MEDICAL, tmp_path, 1, 32_000)
    responder = ExtractionResponder(random_faults=("garbage",), rate=0.3, seed=11).for_server
    result = compare([target], tmp_path / "work", responder=responder, probe=True)
    assert result.low is not None and result.high is not None
    for figure in ("calls", "prompt_tokens", "completion_tokens"):
        assert result.low[figure] <= result.estimate[figure] <= result.high[figure], figure
    assert result.in_range("calls"), result.table()


def test_reportable_communities_are_counted_on_the_models_own_graph() -> None:
    import itertools

    from kgrag.config import CommunitiesConfig
    from kgrag.core.registries import Registries
    from kgrag.indexing.estimate_communities import community_counter, community_ratio
    from kgrag.indexing.estimate_shares import Shares, UnitSample

    count = community_counter(CommunitiesConfig(), Registries())
    groups = [[f"{side}{n}" for n in range(6)] for side in "ab"]
    pairs = [pair for group in groups for pair in itertools.combinations(group, 2)]
    assert count([], pairs) == 2  # two cliques of six, min_community_size 5
    assert count(["x", "y"], [("x", "y")]) == 0  # too small for a report
    # the stand-in of a text without capitalised names has no community: the ratio says nothing
    sample = UnitSample("plain lower-case text only.", frozenset(), frozenset(pairs))
    assert community_ratio([sample], 1.0, 1.0, count) == 1.0
    assert Shares.parse("0.5 0.25 3 10.0 20.0 2.0000") == Shares(0.5, 0.25, 3, 10.0, 20.0, 2.0)
