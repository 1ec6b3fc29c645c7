"""Reply sizes and follow-up rates measured from one model's recent ledger rows."""

from __future__ import annotations

import pytest

from kgrag.core.llm_usage import CallRecord
from kgrag.models.llm.reply_stats import measure_replies


def _row(model: str, completion: int, error: str | None = None, *, cached: bool = False) -> CallRecord:
    return CallRecord("r", "index.extract", "openai", model, 1000, completion, "api", 1.0, cached, 0 if cached else 1,
                      error=error)  # fmt: skip


def test_follow_ups_are_counted_from_failed_replies_of_this_model_only() -> None:
    cut = "the reply was cut off at the token limit; give a shorter complete answer"
    rows = [
        _row("small", 800, cut),  # a unit cut twice (first call and re-ask), then two halves that worked
        _row("small", 800, cut),
        _row("small", 400),
        _row("small", 400),
        _row("small", 300, "it is not JSON"),  # rejected once, then accepted
        _row("small", 300),
        _row("small", 999, cached=True),  # free: not a reply this model wrote now
        _row("other", 5000),
    ]
    stats = measure_replies(rows, model="small", stage="index.extract")
    assert stats is not None and stats.calls == 6
    assert stats.mean_completion == 500
    assert abs(stats.follow_up_rate - 4 / 2) < 1e-9  # 2 units made 6 calls: 4 follow-ups
    assert "re-asks/retries" in stats.note("extraction")
    assert measure_replies(rows, model="absent", stage="index.extract") is None


CUT = "the reply was cut off at the token limit; give a shorter complete answer"


def _linked(completion: int, role: str, error: str | None = None, *, unit: str = "u1", run: str = "r") -> CallRecord:
    return CallRecord(run, "index.extract", "openai", "small", 1000, completion, "api", 1.0, False, 1, error=error,
                      unit_key=unit, call_role=role)  # fmt: skip


def test_linked_rows_count_a_half_cut_again_exactly() -> None:
    # unit u1: first pass and re-ask cut, halves; one half cut again and read as two quarters. Unit u2: clean.
    rows = [
        _linked(2400, "first", CUT),
        _linked(2400, "reask", CUT),
        _linked(2400, "half", CUT),
        _linked(900, "half"),
        _linked(600, "half"),
        _linked(600, "half"),
        _linked(1000, "first", unit="u2"),
    ]
    stats = measure_replies(rows, model="small", stage="index.extract")
    assert stats is not None and stats.linked == 7 and stats.halves_cut == 1
    assert stats.follow_ups == 5 and stats.first_calls == pytest.approx(2)  # counted, not 3 cut replies x 1.5
    assert stats.follow_up_rate == 5 / 2
    assert stats.most == 5  # u1 made 5 follow-ups: more than a re-ask and a retry
    assert dict(stats.roles) == {"first": 2, "reask": 1, "half": 4}
    # the same rows without links: today's inference (each cut reply 1.5 follow-ups)
    unlinked = [CallRecord(*(getattr(r, f) for f in ("run_id", "stage", "provider", "model", "prompt_tokens",
                "completion_tokens", "usage_source", "latency_ms", "cache_hit", "attempts")), error=r.error)
                for r in rows]  # fmt: skip
    inferred = measure_replies(unlinked, model="small", stage="index.extract")
    assert inferred is not None and inferred.linked == 0 and inferred.follow_ups == 4.5
    assert inferred.first_calls == pytest.approx(2.5) and inferred.most == 2.0


def test_linked_and_unlinked_rows_are_counted_each_their_way() -> None:
    old = _row("small", 300, "it is not JSON")  # written before the ledger had links: inferred
    rows = [_linked(500, "first", "it is not JSON", unit="a"), _linked(500, "reask", unit="a"), old, _row("small", 300)]
    stats = measure_replies(rows, model="small", stage="index.extract")
    assert stats is not None and stats.linked == 2
    assert stats.follow_ups == 2 and stats.first_calls == pytest.approx(2)  # 1 counted + 1 inferred of each
    # the same unit extracted again in a later run is another first call with its own follow-ups
    again = [*rows, _linked(500, "first", unit="a", run="r2")]
    counted = measure_replies(again, model="small", stage="index.extract")
    assert counted is not None and counted.first_calls == pytest.approx(3) and counted.follow_ups == 2


def test_the_point_rate_follows_linked_units_past_a_re_ask_and_a_retry() -> None:
    from kgrag.models.llm.estimate_range import MAX_FOLLOW_UPS, extraction_point_rate, extraction_rates

    # every unit cut twice, then both halves cut again, then four quarters: 1 + 1 + 2 + 4 calls
    roles = [("first", CUT), ("reask", CUT), ("half", CUT), ("half", CUT)] + [("half", None)] * 4
    rows = [_linked(2400, role, error, unit=unit) for unit in ("a", "b") for role, error in roles]
    stats = measure_replies(rows, model="small", stage="index.extract")
    assert stats is not None and stats.follow_up_rate == 7 > MAX_FOLLOW_UPS
    sample = stats.sample()
    low, high = extraction_rates(sample)
    assert low <= extraction_point_rate(sample) == 7 <= high == 7  # not held at a re-ask and a retry


def test_first_passes_and_follow_ups_are_sized_apart() -> None:
    # a small model copies the worked example on one unit, and that long rejected reply is asked again twice:
    # the first passes' size is what the clean units replied, not pulled up by the rejected unit's follow-ups
    looped = CallRecord("r", "index.extract", "openai", "small", 1000, 1600, "loop", 1.0, False, 1, unit_key="c",
                        call_role="first")  # fmt: skip
    rows = [
        _linked(740, "first", "copies the example", unit="a"),
        _linked(720, "reask", "copies the example", unit="a"),
        _linked(460, "retry", unit="a"),
        _linked(250, "first", unit="b"),
        looped,  # a reply stopped in a loop is priced apart
    ]
    stats = measure_replies(rows, model="small", stage="index.extract")
    assert stats is not None
    assert stats.first_completion == pytest.approx((740 + 250) / 2)
    assert stats.follow_up_completion == pytest.approx((720 + 460) / 2)
    assert "first passes 495, follow-ups 590" in stats.note("extraction")
    unlinked = measure_replies([_row("small", 300)], model="small", stage="index.extract")
    assert unlinked is not None and unlinked.first_completion is None and unlinked.follow_up_completion is None
