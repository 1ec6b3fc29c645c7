"""Reply sizes and follow-up rates measured from one model's recent ledger rows."""

from __future__ import annotations

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
