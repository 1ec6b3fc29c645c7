"""The JSON shapes the statistics write into reports: an interval cell, a paired-difference cell, a
verdict and the statistics block of a run. They are plain dicts at run time (``json.dumps`` writes them
as built, key order included); the types say which keys a reader of a report may rely on."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class BootstrapSettings(TypedDict):
    """How the intervals and verdicts of a report were computed (:meth:`Bootstrap.describe`)."""

    resamples: int
    seed: int
    level: float
    min_stratum: int
    method: str
    verdict: str


class IntervalCell(TypedDict):
    """A mean with its 95 % interval (``[low, high]``, None below two questions) over ``n`` questions;
    ``small`` marks a question type under the minimum stratum size."""

    mean: float | None
    ci95: list[float] | None
    n: int
    small: NotRequired[bool]


class SummaryCell(IntervalCell):
    """A summary cell of a run: the interval over questions plus the spread over runs (``std``, None
    when nothing was measured), how many runs, and the scores left unmeasured."""

    std: float | None
    runs: int
    unmeasured: int


Summary = dict[str, dict[str, dict[str, SummaryCell]]]
"""pipeline → metric → column (each question type, ``All``, ``Macro``) → cell."""


class Tally(TypedDict):
    """Wins, losses and ties of one pipeline against the baseline on the questions both measured."""

    wins: int
    losses: int
    ties: int


class DifferenceCell(IntervalCell):
    """A paired difference (pipeline − baseline) with the p of its t-test; a retrieval evaluation adds
    the wins/losses/ties ``record`` and a run report the ``baseline`` it was taken against."""

    p: float | None
    baseline: NotRequired[str]
    record: NotRequired[Tally]


class AgainstCell(IntervalCell):
    """The leader's paired difference to one other pipeline with its raw and Holm-adjusted p."""

    p: float | None
    p_holm: float | None


class Family(TypedDict):
    """The multiple-comparison family a verdict controls."""

    rule: str
    alpha: float
    comparisons: int


class Verdict(TypedDict):
    """One verdict on a metric and a column: ``best`` names a pipeline only when Holm rejects every
    comparison of the leader; ``text`` is the sentence a report prints."""

    metric: str
    column: str
    leader: NotRequired[str]
    top: NotRequired[list[str]]
    leading: NotRequired[list[str]]
    family: NotRequired[Family]
    against: NotRequired[dict[str, AgainstCell]]
    best: str | None
    text: str


PairedTable = dict[str, dict[str, dict[str, DifferenceCell]]]
"""metric (or measure) → pipeline → column → the paired difference against the baseline."""


class StatsBlock(TypedDict):
    """The statistics of a metric run: settings, baseline, paired table and verdicts (metric → column)."""

    bootstrap: BootstrapSettings
    baseline: str | None
    paired: PairedTable
    verdicts: dict[str, dict[str, Verdict]]


__all__ = [
    "AgainstCell",
    "BootstrapSettings",
    "DifferenceCell",
    "Family",
    "IntervalCell",
    "PairedTable",
    "StatsBlock",
    "Summary",
    "SummaryCell",
    "Tally",
    "Verdict",
]
