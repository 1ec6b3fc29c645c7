"""Rate buckets, retry schedule and Retry-After parsing, with fake clocks (no sleeping)."""

from __future__ import annotations

import random
from email.utils import formatdate

import pytest

from kgrag.core.errors import BudgetExceededError
from kgrag.models.llm.budget import TokenBudget
from kgrag.models.llm.ratelimit import TokenBucket
from kgrag.models.llm.retry import RetryPolicy, parse_retry_after


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_request_bucket_paces_after_the_burst() -> None:
    clock = FakeClock()
    bucket = TokenBucket(600, clock=clock, sleep=clock.sleep)  # 10/s, burst 10
    for _ in range(10):
        assert bucket.acquire() == 0
    for _ in range(20):
        bucket.acquire()
    assert clock.now == pytest.approx(2.0, abs=1e-6)


def test_token_bucket_lets_one_oversized_request_through_then_waits() -> None:
    clock = FakeClock()
    bucket = TokenBucket(6000, clock=clock, sleep=clock.sleep)  # 100 tokens/s, capacity 100
    assert bucket.acquire(500) == 0  # bigger than the bucket: goes when full, leaves debt
    waited = bucket.acquire(50)
    assert waited == pytest.approx(4.5, abs=1e-6)  # debt of 400 then 50 more at 100/s


def test_backoff_grows_is_capped_and_jittered() -> None:
    policy = RetryPolicy(max_retries=5, base_s=1.0, max_s=8.0)
    rng = random.Random(1)
    delays = [policy.delay(i, None, rng) for i in range(6)]
    assert all(0.5 * min(8, 2**i) <= d <= min(8, 2**i) for i, d in enumerate(delays))
    assert policy.delay(0, 5.0, rng) == 5.0  # Retry-After wins when longer
    assert policy.delay(3, 0.1, rng) >= 4.0  # and backoff wins when Retry-After is shorter


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after-ms": "250"}, 0) == 0.25
    assert parse_retry_after({"retry-after": "3"}, 0) == 3.0
    assert parse_retry_after({"retry-after": "1.5"}, 0) == 1.5
    now = 1_700_000_000.0
    assert parse_retry_after({"retry-after": formatdate(now + 30, usegmt=True)}, now) == pytest.approx(30, abs=1)
    assert parse_retry_after({"retry-after": "soon"}, 0) is None
    assert parse_retry_after({}, 0) is None


def test_budget_reserves_worst_case_and_settles() -> None:
    budget = TokenBudget(1000)
    held = budget.reserve(600)
    with pytest.raises(BudgetExceededError, match="600 in flight"):
        budget.reserve(500)
    budget.settle(held, 200)
    budget.reserve(700)
    assert budget.used == 200
    TokenBudget(None).reserve(10**9)
