"""How an extraction reply grows with the names of its text, from a few measured replies.

One reply says how long a model's replies are, not whether they follow the text: a model that writes
every name it reads replies in proportion to the names, one that caps its entities does not. Replies to
texts of different name counts tell them apart: :func:`fit_replies` draws the least-squares line through
(names, mean reply) of the measured units, its slope never below zero (more names never shorten a
reply), so the estimate prices each unit by its own names where the model's replies followed them and
flat where they did not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ReplyPoint:
    """One measured unit: the distinct names of its text, its mean reply per extraction call, the calls."""

    names: int
    completion: float
    calls: int

    def stored(self) -> str:
        return f"{self.names}:{self.completion:.1f}:{self.calls}"

    @classmethod
    def parse_all(cls, value: str | None) -> list[ReplyPoint]:
        """The points of a stored value (malformed ones left out)."""
        points = []
        for item in (value or "").split():
            try:
                names, completion, calls = item.split(":")
                points.append(cls(int(names), float(completion), int(calls)))
            except ValueError:
                continue
        return points


@dataclass(frozen=True)
class ReplyFit:
    """A reply of ``completion`` tokens at ``names`` names, ``per_name`` more tokens per further name."""

    completion: float
    names: float
    per_name: float
    calls: int  # the calls the points measured

    def at(self, names: int) -> float:
        return max(0.0, self.completion + self.per_name * (names - self.names))


def fit_replies(points: Sequence[ReplyPoint]) -> ReplyFit | None:
    """The line through ``points`` (None without any; flat when their names do not differ)."""
    if not points:
        return None
    mean_names = sum(p.names for p in points) / len(points)
    mean_reply = sum(p.completion for p in points) / len(points)
    spread = sum((p.names - mean_names) ** 2 for p in points)
    slope = sum((p.names - mean_names) * (p.completion - mean_reply) for p in points) / spread if spread else 0.0
    return ReplyFit(mean_reply, mean_names, max(0.0, slope), sum(p.calls for p in points))
