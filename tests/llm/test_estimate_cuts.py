"""Each unit's chance of a first pass cut at ``max_tokens``, from its predicted reply size
(:mod:`kgrag.models.llm.estimate_cuts`), and the follow-ups priced per cut first pass."""

from __future__ import annotations

import math
from typing import cast

import pytest
from tests.llm.test_estimate_structure import NEVER
from tests.llm.test_reply_stats import CUT, _linked

from kgrag.core.llm_types import ChatRequest, Message, Prices, PromptRef
from kgrag.models.llm.estimate import EstimatingProvider
from kgrag.models.llm.estimate_assumed import EstimateAssumptions
from kgrag.models.llm.estimate_cuts import CutChance, fit_cut_chance
from kgrag.models.llm.reply_stats import SIZE_FOLLOW_UPS, measure_replies
from kgrag.models.llm.tokens import default_token_counter

# whole first passes: 50 tokens per distinct name and some noise (names, completion tokens)
WHOLE = [(10, 520), (14, 690), (20, 1010), (24, 1190), (30, 1520), (34, 1690), (40, 1990)]


def _model(firsts: list[tuple[int, int, bool]], per_cut: float = 3.0, per_whole: float = 0.0) -> CutChance:
    fitted = fit_cut_chance(firsts, per_cut, per_whole)
    assert fitted is not None
    return fitted


def _model_of(whole: list[tuple[int, int]]) -> CutChance:
    return _model([(names, size, False) for names, size in whole])


def test_a_unit_far_below_max_tokens_has_no_cut_chance_and_one_far_above_is_cut() -> None:
    model = _model_of(WHOLE)
    assert model.slope == pytest.approx(50, abs=2) and model.cut_share == 0
    assert model.chance(20, 4000) < 1e-6  # a reply of ~1,000 tokens against a cap of 4,000
    assert model.chance(100, 2000) > 1 - 1e-6  # ~5,000 tokens against 2,000
    assert model.chance(40, round(model.intercept + 40 * model.slope)) == pytest.approx(0.5, abs=0.05)  # at the line
    # a unit naming more is predicted to reply longer, so it is cut more often at the same cap
    assert model.chance(60, 2000) > model.chance(40, 2000) > model.chance(20, 2000)
    assert model.chance(20, None) == 0.0


def test_replies_that_do_not_follow_names_give_every_unit_the_same_chance() -> None:
    model = _model_of([(10, 1500), (40, 1400), (20, 1600), (30, 1450), (15, 1550), (35, 1500)])
    assert abs(model.slope) < 5
    assert model.chance(10, 1700) == pytest.approx(model.chance(40, 1700), abs=0.05)


def test_a_server_that_sent_a_reply_past_the_cap_whole_cuts_nothing() -> None:
    model = _model_of([*WHOLE, (60, 3000)])
    assert model.longest_whole == 3000
    assert model.chance(60, 2400) == 0.0  # it ignores max_tokens: nothing is cut
    assert model.chance(60, 3000) > 0.0


def test_cut_replies_are_censored_not_taken_at_the_length_read() -> None:
    # the units of 34 and 40 names cut at 1,600: as if never cut, their replies lie above the lengths read
    firsts = [(n, min(size, 1600), size > 1600) for n, size in WHOLE]
    model = _model(firsts)
    assert model.cut_share == pytest.approx(2 / 7)
    assert model.slope == pytest.approx(50, abs=5)  # the line through the whole replies and above the cut ones
    assert model.chance(40, 1600) > 0.9
    assert _model([(n, size, False) for n, size, _ in firsts]).slope < 45  # read as whole, the line bends down


def test_too_few_whole_replies_fit_nothing() -> None:
    assert fit_cut_chance([(n, size, False) for n, size in WHOLE[:4]], 3.0, 0.0) is None  # a probe's few units
    assert fit_cut_chance([(n, 800, False) for n, _ in WHOLE], 3.0, 0.0) is None  # no spread


def test_the_rate_moves_with_the_units_cut_chance_from_the_share_it_was_measured_at() -> None:
    model = CutChance(1000.0, 0.0, 100.0, 20.0, 100.0, 8, 0.25, per_cut=4.0, per_whole=0.2, longest_whole=900)
    measured = 0.25 * 4.0 + 0.75 * 0.2
    assert model.rate(measured, 0.25) == pytest.approx(measured)  # the same cut share: the measured rate
    assert model.rate(measured, 1.0) == pytest.approx(4.0)  # every unit cut
    assert model.rate(measured, 0.0) == pytest.approx(0.2)  # none can be cut


def test_the_ledger_counts_follow_ups_per_cut_first_pass_and_per_other() -> None:
    rows = [
        _linked(2400, "first", CUT, unit="a"), _linked(2400, "reask", CUT, unit="a"),
        _linked(1000, "half", unit="a"), _linked(1000, "half", unit="a"),
        _linked(1500, "first", "it is not JSON", unit="b"), _linked(1500, "reask", unit="b"),
        _linked(1200, "first", unit="c"), _linked(1300, "first", unit="d"),
    ]  # fmt: skip
    stats = measure_replies(rows, model="small", stage="index.extract")
    assert stats is not None
    assert sorted(stats.firsts) == [("a", 2400, True), ("b", 1500, False), ("c", 1200, False), ("d", 1300, False)]
    assert stats.per_cut == 3  # a's re-ask and two halves
    assert stats.per_whole == pytest.approx(1 / 3)  # b's re-ask over b, c and d
    clean = measure_replies([_linked(1200, "first", unit="c")], model="small", stage="index.extract")
    assert clean is not None and clean.per_cut == SIZE_FOLLOW_UPS  # none cut: the inferred fallback


def _request(text: str, max_tokens: int) -> ChatRequest:
    messages = cast(tuple[Message, ...], ({"role": "user", "content": f"Extract.\nText:\n{text}"},))
    return ChatRequest(messages, "m", {"max_tokens": max_tokens}, PromptRef("extract_graph", "1"))


UNIT = "Ada Morrow met Jonas Pell in Harwick. Tallis Corp sent Mira Quent to the Orrin Council."


def _follow_ups(assumptions: EstimateAssumptions, max_tokens: int) -> int:
    provider = EstimatingProvider(NEVER, default_token_counter(), assumptions)
    for _ in range(10):
        provider.complete(_request(UNIT, max_tokens))
    estimate = provider.report(Prices())
    return estimate.calls - 10


def test_units_that_cannot_be_cut_keep_the_measured_rate_and_units_sure_to_be_cut_pay_per_cut() -> None:
    # replies of 3000 ± 100 tokens whatever the names; a quarter of the measured first passes cut, 4 follow-ups each
    cuts = CutChance(3000.0, 0.0, 100.0, 20.0, 100.0, 8, 0.25, per_cut=4.0, per_whole=0.0, longest_whole=900)
    base = EstimateAssumptions(extraction_completion=2000.0, follow_up_rate=1.0)
    assert _follow_ups(base, 5000) == _follow_ups(base, 1000) == 10  # without the model: the flat rate
    with_cuts = EstimateAssumptions(extraction_completion=2000.0, follow_up_rate=1.0, cuts=cuts)
    assert _follow_ups(with_cuts, 5000) == 0  # far below the cap: nothing cut
    assert _follow_ups(with_cuts, 1000) == 40  # far above: every unit cut, 4 follow-ups each
    assert _follow_ups(with_cuts, 3000) == 20  # at the mean: half
    assert any("follow-ups per cut first pass" in line for line in with_cuts.lines())
    # no cut measured and none possible: exactly the measured rate
    never = CutChance(1000.0, 0.0, 100.0, 20.0, 100.0, 8, 0.0, SIZE_FOLLOW_UPS, 0.3, 900)
    kept = EstimateAssumptions(extraction_completion=1000.0, follow_up_rate=0.3, cuts=never)
    assert _follow_ups(kept, 5000) == 3
    assert math.isclose(never.rate(0.3, 0.0), 0.3)


def test_a_stored_unit_has_the_key_the_ledger_links_its_calls_to() -> None:
    from kgrag.core.records import ChunkRecord
    from kgrag.graph.extract.units import build_units
    from kgrag.indexing.estimate_stored import StoredUnit

    texts = ["Ada Morrow met Jonas Pell.", "Tallis Corp sent Mira Quent."]
    chunks = [ChunkRecord(f"c{i}", "d", i, 0, len(t), t, 6, str(i)) for i, t in enumerate(texts)]
    unit = build_units(chunks, 100, default_token_counter())[0]
    assert StoredUnit(unit.text, unit.chunk_ids).key == unit.key


def test_follow_ups_are_priced_at_the_measured_follow_up_reply() -> None:
    def follow_up_completion(assumptions: EstimateAssumptions) -> int:
        provider = EstimatingProvider(NEVER, default_token_counter(), assumptions)
        for _ in range(10):
            provider.complete(_request(UNIT, 5000))
        first = provider.report(Prices())
        return first.completion_tokens

    same = EstimateAssumptions(extraction_completion=400.0, follow_up_rate=0.5)
    apart = EstimateAssumptions(extraction_completion=400.0, follow_up_rate=0.5, follow_up_completion=800.0)
    # five follow-ups of ten units: at the first passes' size, then at the 800 tokens they were measured at
    assert follow_up_completion(apart) - follow_up_completion(same) == pytest.approx(5 * (800 - 400), rel=0.2)
