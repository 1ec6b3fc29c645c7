"""What the fake OpenAI-compatible server injects and counts: the fault kinds, the plan a test gives
(a sequence, then a rate), the schedule that draws faults from it, and the server's own statistics."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

FaultKind = Literal[
    "rate_limit", "server_error", "slow", "disconnect", "malformed_body", "truncated", "wrong_schema",
    "non_string_content", "null_content",
]  # fmt: skip
ALL_FAULTS: tuple[FaultKind, ...] = (
    "rate_limit", "server_error", "slow", "disconnect", "malformed_body", "truncated", "wrong_schema",
)  # fmt: skip


@dataclass
class FaultPlan:
    """Which faults to inject: ``sequence`` first (one entry per request, None = healthy), then ``rate``.

    With ``block`` > 0 the rate is exact rather than drawn: each run of ``block`` requests carries
    ``round(rate * block)`` faults at seeded random places, so a test can claim "30% of requests
    failed" without a coin deciding it (faults may still come back to back).
    """

    rate: float = 0.0
    kinds: tuple[FaultKind, ...] = ALL_FAULTS
    sequence: list[FaultKind | None] = field(default_factory=list)
    retry_after_s: float = 0.05
    slow_s: float = 0.5
    seed: int = 0
    block: int = 0


class FaultSchedule:
    """Draws the fault of each request from a :class:`FaultPlan`: its sequence first, then its rate
    (a seeded coin per request, or with ``block`` the exact share of each block, placed at random)."""

    def __init__(self, plan: FaultPlan) -> None:
        self.plan = plan
        self.sequence = list(plan.sequence)
        self.rng = random.Random(plan.seed)
        self.block: list[bool] = []

    def _hit(self) -> bool:
        size = self.plan.block
        if size <= 0:
            return self.rng.random() < self.plan.rate
        if not self.block:
            hits = round(self.plan.rate * size)
            self.block = [True] * hits + [False] * (size - hits)
            self.rng.shuffle(self.block)
        return self.block.pop()

    def next(self) -> FaultKind | None:
        if self.sequence:
            return self.sequence.pop(0)
        if self.plan.rate > 0 and self._hit():
            return self.rng.choice(self.plan.kinds)
        return None


@dataclass
class ServerStats:
    """What the server saw; read it after (or while) the client runs."""

    requests: int = 0
    format_rejections: Counter[str] = field(default_factory=Counter)  # response_format types refused
    chat_requests: int = 0
    embedding_requests: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    arrivals: list[float] = field(default_factory=list)
    streams: int = 0  # streamed replies
    streams_aborted: int = 0  # streamed replies whose client left before the end

    def max_in_window(self, window_s: float) -> int:
        """Most requests that arrived within any ``window_s`` seconds."""
        times = sorted(self.arrivals)
        best, start = 0, 0
        for end, t in enumerate(times):
            while t - times[start] > window_s:
                start += 1
            best = max(best, end - start + 1)
        return best
